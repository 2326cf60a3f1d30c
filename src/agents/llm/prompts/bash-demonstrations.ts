import type { Demonstration } from './demonstration.js';

/** Five Bash episodes on made-up file systems, written for this project. */
export const BASH_DEMONSTRATIONS: readonly Demonstration[] = [
  {
    task: 'Count the lines of all the .csv files under /data, together.',
    steps: [
      {
        thought: 'I will first see which .csv files there are.',
        action: { code: "find /data -name '*.csv'" },
        observation: '/data/jan.csv\n/data/feb.csv\n/data/old/dec.csv',
      },
      {
        thought: 'Three files, one in a sub-folder. I join them and count the lines.',
        action: { code: "find /data -name '*.csv' -exec cat {} + | wc -l" },
        observation: '412',
      },
      { thought: 'The total is printed.', action: { submit: undefined } },
    ],
  },
  {
    task: 'Create the folder /backup if it does not exist and copy every .conf file of /etc/app into it.',
    steps: [
      {
        thought: 'I create the folder only when it is missing, then copy the files.',
        action: { code: '[ -d /backup ] || mkdir /backup; cp /etc/app/*.conf /backup/' },
        observation: '',
      },
      {
        thought: 'Nothing was printed, so no error. I check that the files arrived.',
        action: { code: 'ls /backup' },
        observation: 'db.conf\nweb.conf',
      },
      { thought: 'Both files are in /backup.', action: { submit: undefined } },
    ],
  },
  {
    task: 'Print the three largest files in /var/log with their sizes.',
    steps: [
      {
        thought: 'du gives sizes; sorting them in reverse puts the largest first.',
        action: { code: 'find /var/log -type f -exec du -k {} + | sort -rn | head -n 3' },
        observation: '2048\t/var/log/syslog.1\n1024\t/var/log/syslog\n96\t/var/log/auth.log',
      },
      { thought: 'These are the three largest files.', action: { submit: undefined } },
    ],
  },
  {
    task: "Replace every 'colour' with 'color' in /docs/guide.txt.",
    steps: [
      {
        thought: 'sed can edit the file in place.',
        action: { code: 'sed -i "s/colour/color/g" /docs/guide.txt' },
        observation: '',
      },
      {
        thought: 'I check that no old spelling is left.',
        action: { code: 'grep -c colour /docs/guide.txt' },
        observation: '0',
      },
      { thought: 'The file is fixed.', action: { submit: undefined } },
    ],
  },
  {
    task: 'How many distinct users appear in /logs/access.log? The user is the first field of each line.',
    steps: [
      {
        thought: 'I look at a few lines to see how the fields are separated.',
        action: { code: 'head -n 3 /logs/access.log' },
        observation: 'ana GET /index.html\nben GET /about.html\nana POST /form',
      },
      {
        thought: 'Fields are separated by spaces. I cut the first one and count the distinct values.',
        action: { code: "cut -d ' ' -f 1 /logs/access.log | sort -u | wc -l" },
        observation: '14',
      },
      { thought: 'There are 14 distinct users.', action: { submit: undefined } },
    ],
  },
];
