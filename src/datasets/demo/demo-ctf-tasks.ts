import { gzip, pngWithText, rot13, seededBytes, tarArchive, utf8, xorBytes } from './demo-ctf-files.js';

/** A generated file of a demo CTF task: its bytes and mode. */
export interface DemoCtfFile {
  readonly data: Uint8Array;
  readonly mode?: number;
}

/** A capture-the-flag task written for intercode; its files are generated, never stored. */
export interface DemoCtfTask {
  readonly id: string;
  readonly category: 'General Skills' | 'Cryptography' | 'Forensics' | 'Reverse Engineering';
  readonly query: string;
  readonly flag: string;
  /** A command, run in the task's folder, whose output shows the flag (the gold agent's first action). */
  readonly solveCommand: string;
  /** The task's files by name, relative to its folder. */
  files(): Readonly<Record<string, DemoCtfFile>>;
}

/** Bytes with the high bit set: `strings` finds nothing in them. */
function noise(seed: number, length: number): Uint8Array {
  return seededBytes(seed, length, (value) => value | 0x80);
}

function joined(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

const FLAG_PATTERN = "grep -o 'intercode{[^}]*}'";

export const DEMO_CTF_TASKS: readonly DemoCtfTask[] = [
  {
    id: 'rot13-note',
    category: 'Cryptography',
    query:
      'The lighthouse keeper left a scrambled note in note.txt. Every letter was rotated halfway round the alphabet. Find the flag (format intercode{...}).',
    flag: 'intercode{rotate_thirteen_and_back}',
    solveCommand: `tr 'A-Za-z' 'N-ZA-Mn-za-m' < note.txt | ${FLAG_PATTERN}`,
    files: () => ({
      'note.txt': {
        data: utf8(
          rot13(
            'Dear relief keeper,\nthe lamp oil is in the shed and the flag is intercode{rotate_thirteen_and_back}\nkeep the light burning.\n',
          ),
        ),
      },
    }),
  },
  {
    id: 'base64-twice',
    category: 'General Skills',
    query:
      'message.b64 was encoded with base64, and then the result was encoded with base64 once more. Decode it to get the flag.',
    flag: 'intercode{b4se64_all_the_w4y_d0wn}',
    solveCommand: 'base64 -d message.b64 | base64 -d',
    files: () => ({
      'message.b64': { data: utf8(`${base64(base64('intercode{b4se64_all_the_w4y_d0wn}\n'))}\n`) },
    }),
  },
  {
    id: 'nested-archive',
    category: 'Forensics',
    query:
      'backup.tar holds an old backup of the keeper logs. One of the files inside is compressed; the flag is in it.',
    flag: 'intercode{t4r_th3n_gz1p}',
    solveCommand: 'tar -xf backup.tar && zcat backup/logs/secret.log.gz',
    files: () => ({
      'backup.tar': {
        data: tarArchive([
          { path: 'backup/' },
          { path: 'backup/README', data: utf8('Keeper logs, spring season.\n') },
          { path: 'backup/logs/' },
          { path: 'backup/logs/monday.log', data: utf8('06:00 lamp off\n18:30 lamp on\n') },
          {
            path: 'backup/logs/secret.log.gz',
            data: gzip(utf8('23:59 note to self: intercode{t4r_th3n_gz1p}\n')),
          },
        ]),
      },
    }),
  },
  {
    id: 'vault-strings',
    category: 'Reverse Engineering',
    query:
      'The program vault keeps a flag inside itself. You do not need to run it: look at the text hidden among its bytes.',
    flag: 'intercode{str1ngs_r3v3al_s3cr3ts}',
    solveCommand: `strings -n 8 vault | ${FLAG_PATTERN}`,
    files: () => ({
      vault: {
        mode: 0o755,
        data: joined([
          new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]),
          noise(11, 3000),
          utf8('usage: vault <pin>\u0000'),
          noise(12, 1500),
          utf8('access denied\u0000'),
          noise(13, 700),
          utf8('intercode{str1ngs_r3v3al_s3cr3ts}\u0000'),
          noise(14, 2500),
        ]),
      },
    }),
  },
  {
    id: 'xor-lamp',
    category: 'Cryptography',
    query:
      'flag.enc was produced by encrypt.py, which is in the folder too. Recover the flag (python3 is available).',
    flag: 'intercode{x0r_w1th_a_l4mp}',
    solveCommand: `python3 -c "k=b'lamp';d=open('flag.enc','rb').read();print(bytes(c^k[i%len(k)] for i,c in enumerate(d)).decode())"`,
    files: () => ({
      'encrypt.py': {
        data: utf8(
          [
            'import sys',
            '',
            "KEY = b'lamp'",
            '',
            'data = open(sys.argv[1], "rb").read()',
            'out = bytes(byte ^ KEY[i % len(KEY)] for i, byte in enumerate(data))',
            'open(sys.argv[2], "wb").write(out)',
            '',
          ].join('\n'),
        ),
      },
      'flag.enc': { data: xorBytes(utf8('intercode{x0r_w1th_a_l4mp}'), utf8('lamp')) },
    }),
  },
  {
    id: 'png-comment',
    category: 'Forensics',
    query: 'photo.png looks like a plain grey gradient, but its metadata says more. Find the flag.',
    flag: 'intercode{m3tad4ta_t3lls_all}',
    solveCommand: `strings photo.png | ${FLAG_PATTERN}`,
    files: () => ({
      'photo.png': {
        data: pngWithText(32, 8, {
          Title: 'Gradient',
          Author: 'the keeper',
          Comment: 'intercode{m3tad4ta_t3lls_all}',
        }),
      },
    }),
  },
  {
    id: 'hex-spaces',
    category: 'General Skills',
    query:
      'secret.hex is a hex dump of a short text. Turn it back into text; the flag contains spaces, submit it exactly.',
    flag: 'intercode{hidden in plain sight}',
    solveCommand: 'xxd -r -p secret.hex',
    files: () => ({
      'secret.hex': { data: utf8(`${Buffer.from('intercode{hidden in plain sight}\n').toString('hex')}\n`) },
    }),
  },
];
