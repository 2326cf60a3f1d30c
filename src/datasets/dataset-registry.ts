import { DatasetError } from '../core/errors.js';
import { Registry } from '../core/registry.js';
import { ctfDataset } from './ctf-dataset.js';
import type { DatasetSpec } from './dataset-spec.js';
import { demoBashDataset } from './demo/demo-bash.js';
import { demoCtfDataset } from './demo/demo-ctf.js';
import { demoPythonDataset } from './demo/demo-python.js';
import { demoSqlDataset } from './demo/demo-sql.js';
import { mbppDataset } from './mbpp-dataset.js';
import { nl2bashDatasets } from './nl2bash-datasets.js';
import { sqlDatasets } from './sql-datasets.js';

/** The built-in task sets shipped in the package; a new demo set is one more line here. */
const DEMO_DATASETS: readonly (() => DatasetSpec)[] = [
  demoBashDataset,
  demoSqlDataset,
  demoCtfDataset,
  demoPythonDataset,
];

/** The datasets intercode knows, in listing order. */
export function builtinDatasets(): DatasetSpec[] {
  return [
    ...nl2bashDatasets(),
    ...sqlDatasets(),
    mbppDataset(),
    ctfDataset(),
    ...DEMO_DATASETS.map((make) => make()),
  ];
}

/** Registers every built-in dataset id in `registry`. */
export function registerBuiltinDatasets(registry: Registry<DatasetSpec>): Registry<DatasetSpec> {
  for (const spec of builtinDatasets()) registry.register(spec.id, spec, spec.description);
  return registry;
}

/** A new registry holding the built-in datasets. */
export function createDatasetRegistry(): Registry<DatasetSpec> {
  return registerBuiltinDatasets(new Registry<DatasetSpec>('dataset'));
}

/** The known ids of a registry, sorted, for messages. */
export function knownDatasetIds(registry: Registry<DatasetSpec>): string {
  return registry
    .list()
    .map((entry) => entry.id)
    .sort()
    .join(', ');
}

/** The spec of a dataset id, or a one-line DatasetError (DATASET_UNKNOWN) naming the known ids. */
export function datasetSpec(registry: Registry<DatasetSpec>, id: string): DatasetSpec {
  if (!registry.has(id)) {
    throw new DatasetError(
      'DATASET_UNKNOWN',
      `unknown dataset "${id}" (known: ${knownDatasetIds(registry)})`,
    );
  }
  return registry.get(id);
}
