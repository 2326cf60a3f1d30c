import { z } from 'zod';
import { MAX_FORK } from '../session/session-registry.js';
import {
  ActionSchema,
  CodingObservationSchema,
  EnvelopeSchema,
  type ObservationProfile,
  ObservationSchema,
  ResetParamsSchema,
  SessionParamsSchema,
  StateSchema,
  StepBodySchema,
} from '../session/wire-schemas.js';

function schemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const reply = (description: string, schema: unknown = { type: 'object' }) => ({
  description,
  content: json(schema),
});
const ERRORS = {
  '401': reply('Missing or wrong bearer token', ref('Error')),
  '422': reply('Validation error', ref('ValidationError')),
};

/**
 * The server's OpenAPI 3.1 document, generated from the zod schemas that validate the requests
 * (`info.version` "1.0.0", as OpenEnv's servers give and `openenv validate` reads).
 */
export function openApiDocument(profile: ObservationProfile): Record<string, unknown> {
  const sessionHeader = {
    name: 'X-Session-Id',
    in: 'header',
    required: false,
    description: 'Run on this HTTP session (POST /intercode/sessions) instead of a fresh env.',
    schema: { type: 'string' },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'intercode environment server',
      version: '1.0.0',
      description: 'OpenEnv-compatible simulation-mode server; extensions under /intercode/. WebSocket: /ws.',
    },
    paths: {
      '/health': { get: { summary: 'Liveness', responses: { '200': reply('Healthy') }, security: [] } },
      '/metadata': { get: { summary: 'Environment metadata', responses: { '200': reply('Metadata') } } },
      '/schema': {
        get: {
          summary: 'JSON Schemas of action, observation, state',
          responses: { '200': reply('Schemas') },
        },
      },
      '/reset': {
        post: {
          summary: 'Reset (stateless unless a session is named)',
          parameters: [sessionHeader],
          requestBody: { required: false, content: json(ref('ResetParams')) },
          responses: { '200': reply('First observation', ref('Envelope')), ...ERRORS },
        },
      },
      '/step': {
        post: {
          summary:
            "Step (stateless: a fresh env reset with the body's reset params, unless a session is named)",
          parameters: [sessionHeader],
          requestBody: { required: true, content: json(ref('StepBody')) },
          responses: { '200': reply('Observation', ref('Envelope')), ...ERRORS },
        },
      },
      '/state': {
        get: {
          summary: 'State',
          parameters: [sessionHeader],
          responses: { '200': reply('State', ref('State')), ...ERRORS },
        },
      },
      '/mcp': {
        post: { summary: 'MCP over JSON-RPC 2.0', responses: { '200': reply('JSON-RPC response') } },
      },
      '/intercode/datasets': { get: { summary: 'Datasets', responses: { '200': reply('Datasets') } } },
      '/intercode/datasets/{id}/tasks': {
        get: {
          summary: "A dataset's tasks (never their gold)",
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 1000 },
            },
          ],
          responses: { '200': reply('Tasks'), '404': reply('Unknown dataset', ref('Error')) },
        },
      },
      '/intercode/sessions': {
        get: { summary: 'Session counts and limits', responses: { '200': reply('Sessions') } },
        post: {
          summary: 'Open an HTTP session',
          requestBody: { required: false, content: json(ref('SessionParams')) },
          responses: {
            '201': reply('Session id'),
            '503': reply('Capacity reached', ref('Error')),
            ...ERRORS,
          },
        },
      },
      '/intercode/sessions/{id}': {
        delete: {
          summary: 'Close an HTTP session',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': reply('Closed'), '404': reply('No such session', ref('Error')) },
        },
      },
      '/intercode/sessions/{id}/fork': {
        post: {
          summary: `Fork the session's episode into new sessions ({"count": n}, 1-${MAX_FORK})`,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: json({
              type: 'object',
              required: ['count'],
              properties: { count: { type: 'integer', minimum: 1, maximum: MAX_FORK } },
            }),
          },
          responses: {
            '201': reply('The new sessions: session_ids, episode_ids, not_copied'),
            '404': reply('No such session', ref('Error')),
            '409': reply('No episode, episode done, or the environment cannot fork', ref('Error')),
            '503': reply('Capacity reached', ref('Error')),
            ...ERRORS,
          },
        },
      },
      '/intercode/ready': {
        get: { summary: 'Readiness', responses: { '200': reply('Ready'), '503': reply('Not ready') } },
      },
    },
    components: {
      schemas: {
        Action: schemaOf(ActionSchema, 'input'),
        Observation: schemaOf(profile === 'coding' ? CodingObservationSchema : ObservationSchema),
        State: schemaOf(StateSchema),
        Envelope: schemaOf(EnvelopeSchema),
        ResetParams: schemaOf(ResetParamsSchema, 'input'),
        SessionParams: schemaOf(SessionParamsSchema, 'input'),
        StepBody: schemaOf(StepBodySchema, 'input'),
        Error: {
          type: 'object',
          required: ['detail', 'code'],
          properties: { detail: { type: 'string' }, code: { type: 'string' }, request_id: {} },
        },
        ValidationError: {
          type: 'object',
          required: ['detail'],
          properties: {
            detail: {
              type: 'array',
              items: {
                type: 'object',
                required: ['type', 'loc', 'msg'],
                properties: {
                  type: { type: 'string' },
                  loc: { type: 'array', items: { type: ['string', 'integer'] } },
                  msg: { type: 'string' },
                  input: {},
                },
              },
            },
          },
        },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }],
  };
}
