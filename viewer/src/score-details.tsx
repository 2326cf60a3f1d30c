import { TextBlock } from './text-block.js';

type Details = Readonly<Record<string, unknown>>;

interface TestOutcome {
  readonly output?: string | null;
  readonly error?: string | null;
}

interface TestComparison {
  readonly test?: string;
  readonly agent?: TestOutcome;
  readonly gold?: TestOutcome;
  readonly agrees?: boolean;
  readonly passed?: boolean;
}

const mark = (value: unknown) => (value === true ? '✓' : value === false ? '✗' : '');

function outcomeText(outcome: TestOutcome | undefined): string {
  if (!outcome) return '';
  return outcome.error ? `raised: ${outcome.error}` : (outcome.output ?? '');
}

/** A fact of the scorer, when the details have it. */
function Fact(props: { label: string; value: unknown }) {
  if (props.value === undefined || props.value === null) return null;
  const text =
    typeof props.value === 'number' && !Number.isInteger(props.value)
      ? props.value.toFixed(3)
      : String(props.value);
  return (
    <tr>
      <th>{props.label}</th>
      <td>{text}</td>
    </tr>
  );
}

/**
 * What the scorer saw on a turn, in the terms of its environment (docs/reference/episodes-jsonl.md,
 * score details): Bash similarity and compared files, SQL rows and rule, Python tests, the CTF flag;
 * the whole object below, folded.
 */
export function ScoreDetails(props: { details: Details }) {
  const d = props.details;
  const same = d.diffSame as { files?: number; correct?: number; total?: number } | undefined;
  const union = typeof d.union === 'number' ? d.union : undefined;
  const tests = Array.isArray(d.tests) ? (d.tests as TestComparison[]) : [];
  return (
    <div class="score-details" data-testid="score-details">
      <table class="parts">
        <tbody>
          <Fact label="rule" value={d.rule} />
          <Fact label="agent rows" value={d.agentRows} />
          <Fact label="gold rows" value={d.goldRows} />
          <Fact
            label="rows in both / in either"
            value={union !== undefined ? `${String(d.intersection)} / ${union}` : undefined}
          />
          <Fact label="gold error" value={d.goldError} />
          <Fact label="output similarity (TF-IDF cosine)" value={d.similarity} />
          <Fact
            label="files compared: same content / total"
            value={same ? `${same.correct} / ${same.total}` : undefined}
          />
          <Fact
            label="gold changes the agent lacks"
            value={Array.isArray(d.diffMiss) ? d.diffMiss.length : undefined}
          />
          <Fact
            label="agent changes the gold lacks"
            value={Array.isArray(d.diffExtra) ? d.diffExtra.length : undefined}
          />
          <Fact label="gold limit" value={d.goldLimit} />
          <Fact label="function scored" value={d.submittedFunction} />
          <Fact
            label="tests agreeing with the gold"
            value={tests.length > 0 ? `${String(d.testsAgreeing)} of ${tests.length}` : undefined}
          />
          <Fact
            label="tests passed"
            value={tests.length > 0 ? `${String(d.testsPassed)} of ${tests.length}` : undefined}
          />
          <Fact label="flag submitted" value={d.submitted} />
          <Fact label="why nothing was scored" value={d.reason} />
          <Fact label="scorer limit" value={d.scoreLimit} />
        </tbody>
      </table>
      {tests.length > 0 ? (
        <table class="tests" data-testid="score-tests">
          <thead>
            <tr>
              <th>test</th>
              <th>agrees</th>
              <th>passed</th>
              <th>agent</th>
              <th>gold</th>
            </tr>
          </thead>
          <tbody>
            {tests.map((test, index) => (
              <tr key={index}>
                <td>
                  <code>{test.test ?? ''}</code>
                </td>
                <td>{mark(test.agrees)}</td>
                <td>{mark(test.passed)}</td>
                <td>{outcomeText(test.agent)}</td>
                <td>{outcomeText(test.gold)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <details class="details">
        <summary>everything the scorer recorded</summary>
        <TextBlock text={JSON.stringify(d, null, 2)} />
      </details>
    </div>
  );
}
