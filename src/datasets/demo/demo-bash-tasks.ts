/** One task of `demo/bash`: a stable id, its kind (the group), the instruction and a deterministic gold. */
export interface DemoBashTask {
  readonly id: string;
  readonly kind: 'search' | 'text' | 'files' | 'archive' | 'checksum';
  readonly query: string;
  readonly gold: string;
}

/** The tasks of `demo/bash`, over the /demo file system built by DEMO_BASH_SETUP. */
export const DEMO_BASH_TASKS: readonly DemoBashTask[] = [
  {
    id: 'count-python-files',
    kind: 'search',
    query: 'How many Python (.py) files are there under /demo/src, subfolders included?',
    gold: "find /demo/src -type f -name '*.py' | wc -l",
  },
  {
    id: 'list-tmp-files',
    kind: 'search',
    query: 'List the full paths of all files ending in .tmp anywhere under /demo, one per line, sorted.',
    gold: "find /demo -type f -name '*.tmp' | sort",
  },
  {
    id: 'files-mentioning-deadline',
    kind: 'search',
    query: 'Which files in /demo/notes mention the word "deadline"? Print their paths, sorted.',
    gold: 'grep -rl deadline /demo/notes | sort',
  },
  {
    id: 'empty-files',
    kind: 'search',
    query: 'Print the paths of all empty regular files under /demo, sorted.',
    gold: 'find /demo -type f -empty | sort',
  },
  {
    id: 'large-files',
    kind: 'search',
    query: 'Print the paths of the files under /demo that are bigger than 1 KiB, sorted.',
    gold: 'find /demo -type f -size +1k | sort',
  },
  {
    id: 'executable-scripts',
    kind: 'search',
    query: 'Which files in /demo/scripts can their owner execute? Print their paths, sorted.',
    gold: 'find /demo/scripts -type f -perm -u+x | sort',
  },
  {
    id: 'count-errors',
    kind: 'text',
    query: 'How many lines of /demo/logs/app.log report an ERROR?',
    gold: 'grep -c ERROR /demo/logs/app.log',
  },
  {
    id: 'log-levels',
    kind: 'text',
    query:
      'For each log level in /demo/logs/app.log (the third field of a line), print how many lines have it, the most frequent first.',
    gold: "awk '{ print $3 }' /demo/logs/app.log | sort | uniq -c | sort -rn",
  },
  {
    id: 'repeated-words',
    kind: 'text',
    query: 'Print the words that occur more than once in /demo/data/words.txt, in alphabetical order.',
    gold: 'sort /demo/data/words.txt | uniq -d',
  },
  {
    id: 'total-quantity',
    kind: 'text',
    query: 'What is the sum of the qty column of /demo/data/fruits.csv?',
    gold: "awk -F, 'NR > 1 { total += $4 } END { print total }' /demo/data/fruits.csv",
  },
  {
    id: 'red-fruits',
    kind: 'text',
    query: 'Print the names of the red fruits listed in /demo/data/fruits.csv, in alphabetical order.',
    gold: 'awk -F, \'$2 == "red" { print $1 }\' /demo/data/fruits.csv | sort',
  },
  {
    id: 'top-scores',
    kind: 'text',
    query: 'Show the three highest scores of /demo/data/scores.tsv with their names, the highest first.',
    gold: 'sort -k2,2nr /demo/data/scores.tsv | head -n 3',
  },
  {
    id: 'config-port',
    kind: 'text',
    query: 'Which port number is set in /demo/config/app.conf? Print just the number.',
    gold: "grep '^port=' /demo/config/app.conf | cut -d= -f2",
  },
  {
    id: 'requests-per-client',
    kind: 'text',
    query:
      'Count the requests of each client address in /demo/logs/access.log (the first field), the busiest client first.',
    gold: "awk '{ print $1 }' /demo/logs/access.log | sort | uniq -c | sort -rn",
  },
  {
    id: 'todo-middle-lines',
    kind: 'text',
    query: 'Print lines 2 to 4 of /demo/notes/todo.txt.',
    gold: "sed -n '2,4p' /demo/notes/todo.txt",
  },
  {
    id: 'words-in-notes',
    kind: 'text',
    query: 'How many words do the .txt files directly in /demo/notes contain altogether?',
    gold: 'cat /demo/notes/*.txt | wc -w',
  },
  {
    id: 'lines-per-python-file',
    kind: 'text',
    query:
      'Count the lines of every Python file under /demo/src, listed by path in sorted order, with a total.',
    gold: "find /demo/src -type f -name '*.py' | sort | xargs wc -l",
  },
  {
    id: 'write-summary',
    kind: 'files',
    query:
      'Create the folder /demo/reports and write the number of lines of /demo/logs/app.log (just the number) into /demo/reports/summary.txt.',
    gold: 'mkdir -p /demo/reports && wc -l < /demo/logs/app.log > /demo/reports/summary.txt',
  },
  {
    id: 'disable-debug',
    kind: 'files',
    query:
      'Turn debugging off in /demo/config/app.conf by changing debug=true to debug=false in the file itself.',
    gold: "sed -i 's/^debug=true$/debug=false/' /demo/config/app.conf",
  },
  {
    id: 'make-executable',
    kind: 'files',
    query:
      'Let the owner execute /demo/scripts/backup.sh, then print the octal permissions and the path of every .sh file in /demo/scripts.',
    gold: "chmod u+x /demo/scripts/backup.sh && stat -c '%a %n' /demo/scripts/*.sh",
  },
  {
    id: 'delete-tmp-files',
    kind: 'files',
    query: 'Delete every .tmp file in /demo/tmp and its subfolders, and nothing else.',
    gold: "find /demo/tmp -type f -name '*.tmp' -delete",
  },
  {
    id: 'rename-jpeg',
    kind: 'files',
    query: 'Rename every .jpeg file in /demo/photos so that its name ends in .jpg instead.',
    gold: 'for f in /demo/photos/*.jpeg; do mv "$f" "/demo/photos/$(basename "$f" .jpeg).jpg"; done',
  },
  {
    id: 'backup-markdown',
    kind: 'files',
    query: 'Copy all Markdown (.md) files of /demo/notes into a new folder /demo/backup.',
    gold: 'mkdir -p /demo/backup && cp /demo/notes/*.md /demo/backup/',
  },
  {
    id: 'append-todo',
    kind: 'files',
    query: 'Add the line "order a new lens" at the end of /demo/notes/todo.txt.',
    gold: "echo 'order a new lens' >> /demo/notes/todo.txt",
  },
  {
    id: 'list-bundle',
    kind: 'archive',
    query: 'List the files stored in the archive /demo/archive/bundle.tar, sorted.',
    gold: 'tar -tf /demo/archive/bundle.tar | sort',
  },
  {
    id: 'extract-bundle',
    kind: 'archive',
    query: 'Extract the archive /demo/archive/bundle.tar into a new folder /demo/restore.',
    gold: 'mkdir -p /demo/restore && tar -xf /demo/archive/bundle.tar -C /demo/restore',
  },
  {
    id: 'archive-logs',
    kind: 'archive',
    query:
      'Pack the folder /demo/logs into an uncompressed tar archive /demo/logs.tar whose paths start with logs/, then list its contents sorted.',
    gold: 'tar -cf /demo/logs.tar -C /demo logs && tar -tf /demo/logs.tar | sort',
  },
  {
    id: 'old-warnings',
    kind: 'archive',
    query: 'How many lines of the compressed log /demo/logs/old/app-2023.log.gz are warnings (WARN)?',
    gold: 'zcat /demo/logs/old/app-2023.log.gz | grep -c WARN',
  },
  {
    id: 'checksum-numbers',
    kind: 'checksum',
    query: 'Print the MD5 checksum of /demo/data/numbers.txt.',
    gold: 'md5sum /demo/data/numbers.txt',
  },
  {
    id: 'duplicate-sources',
    kind: 'checksum',
    query: 'Two files under /demo/src have exactly the same content. Print their MD5 checksums and paths.',
    gold: 'find /demo/src -type f -exec md5sum {} + | sort | uniq -w32 -D',
  },
];
