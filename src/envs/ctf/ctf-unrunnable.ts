const SERVER = 'needs the internet: the flag comes from a picoCTF server it connects to';

/**
 * `ctf/picoctf` tasks that cannot be solved without the internet (sandboxes have no network), with why.
 * Tasks 8 and 14 are not here although upstream touches the network for them: task 8 only offers an
 * optional exiftool download, and task 14's setup only clones binwalk, which the CTF image installs.
 */
export const CTF_NEEDS_NETWORK: Readonly<Record<string, string>> = {
  '1': 'needs the internet: its disk image is downloaded from a picoCTF server by a setup command',
  '7': 'needs the internet: the program to run must be downloaded from the address in link.txt',
  '9': SERVER,
  '16': 'needs the internet: the page to inspect is on a picoCTF web server',
  '20': SERVER,
  '28': SERVER,
  '29': SERVER,
  '35': 'needs the internet: the script to run must be downloaded from a picoCTF server',
  '39': SERVER,
  '41': SERVER,
  '42': SERVER,
  '43': SERVER,
  '54': 'needs the internet: the flag is on a picoCTF web server',
  '57': SERVER,
  '62': SERVER,
  '66': SERVER,
  '73': SERVER,
  '87': SERVER,
  '88': SERVER,
  '89': SERVER,
  '95': SERVER,
};
