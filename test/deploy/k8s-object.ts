// The parts of Kubernetes objects the manifest test reads (the parsed YAML is cast to these).

export interface Probe {
  readonly httpGet?: { readonly path?: string; readonly port?: string | number };
  readonly exec?: { readonly command?: readonly string[] };
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } };
}

type Quantities = { readonly cpu?: string; readonly memory?: string };

export interface Container {
  readonly name: string;
  readonly image?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly EnvVar[];
  readonly ports?: readonly { readonly containerPort: number }[];
  readonly resources?: { readonly requests?: Quantities; readonly limits?: Quantities };
  readonly readinessProbe?: Probe;
  readonly livenessProbe?: Probe;
}

export interface K8sObject {
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly data?: Record<string, string>;
  readonly spec?: {
    readonly template?: {
      readonly spec: { readonly containers?: Container[]; readonly terminationGracePeriodSeconds?: number };
    };
    readonly volumeClaimTemplates?: readonly { readonly metadata: { readonly name: string } }[];
    readonly sessionAffinity?: string;
    readonly sessionAffinityConfig?: { readonly clientIP: { readonly timeoutSeconds: number } };
  };
}
