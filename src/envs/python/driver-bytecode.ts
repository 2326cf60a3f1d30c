/**
 * The Python driver's compiled code, kept for the next starts. Compiling the driver's 75 KB source is a
 * large part of an interpreter's start (70–100 ms on the reference machine); loading its compiled code
 * (`marshal`) takes under a millisecond. The host never compiles: a driver started from source in a
 * **new sandbox** (nothing has run in it yet, so nothing could have altered the interpreter or its
 * compilation) sends its compiled code back in its greeting, tagged with its interpreter's `sys.version`;
 * the next starts get that code with the source beside it, and a driver whose interpreter is not the
 * one of the tag compiles the source itself. Kept in this process's memory, for its source only.
 */

/**
 * The program given to `python3 -c`: it reads `<code bytes> <source bytes>\n`, then the code (`<version>`,
 * a zero byte, the marshalled code; none: empty) and the source from fd 0, runs the code when it was made
 * by this very interpreter (else compiles the source) as the `__main__` module, and leaves it the code it
 * compiled to offer (`DRIVER_CODE`, none when it was given code). What follows on fd 0 is the driver's.
 */
export const DRIVER_BOOT = `import marshal, os, sys


def _boot():
    def read(size):
        data = bytearray()
        while len(data) < size:
            chunk = os.read(0, min(size - len(data), 1 << 20))
            if not chunk:
                os._exit(2)
            data += chunk
        return bytes(data)

    header = bytearray()
    while not header.endswith(b'\\n'):
        header += read(1)
        if len(header) > 40:
            os._exit(2)
    code_size, source_size = (int(size) for size in header.split())
    tagged, source = read(code_size), read(source_size)
    version, _, blob = tagged.partition(b'\\0')
    code = offer = None
    if blob and version == sys.version.encode():
        try:
            code = marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            code = None
    if code is None:
        code = compile(source.decode(), '<string>', 'exec')
        offer = sys.version.encode() + b'\\0' + marshal.dumps(code)
    del tagged, source, blob
    main = sys.modules['__main__'].__dict__
    main['DRIVER_CODE'] = offer
    del main['_boot']
    exec(code, main)


_boot()
`;

/** Compiled code (version-tagged) per driver source: one entry, the source of this build. */
let kept: { readonly source: string; readonly code: Buffer } | undefined;

/** What the host writes first on a new driver's stdin: the header, the kept code (if any) and the source. */
export function driverInput(source: string): Buffer {
  const code = kept?.source === source ? kept.code : Buffer.alloc(0);
  const text = Buffer.from(source);
  return Buffer.concat([Buffer.from(`${code.length} ${text.length}\n`), code, text]);
}

/**
 * Keeps the compiled code a driver offered in its greeting (`code`: hex), when the driver was started
 * in a new sandbox (`trusted`). Anything else is ignored.
 */
export function keepDriverCode(source: string, greeting: unknown, trusted: boolean): void {
  if (!trusted || typeof greeting !== 'object' || greeting === null) return;
  const offered = (greeting as { code?: unknown }).code;
  if (typeof offered !== 'string' || offered.length === 0) return;
  const code = Buffer.from(offered, 'hex');
  if (code.indexOf(0) > 0) kept = { source, code };
}

/** Whether compiled code of `source` is kept. */
export function driverCodeKept(source: string): boolean {
  return kept?.source === source;
}

/** Forgets the kept code (tests, the bench). */
export function forgetDriverCode(): void {
  kept = undefined;
}
