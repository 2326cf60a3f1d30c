/**
 * Commands of the tools upstream's CTF image installs (plus those its tasks name), each with the
 * Debian package that provides it. `intercode doctor` lists the ones missing on the host.
 */
export const CTF_TOOLS = [
  { command: 'python3', debianPackage: 'python3' },
  { command: 'gcc', debianPackage: 'gcc' },
  { command: 'gdb', debianPackage: 'gdb' },
  { command: 'strings', debianPackage: 'binutils' },
  { command: 'objdump', debianPackage: 'binutils' },
  { command: 'file', debianPackage: 'file' },
  { command: 'xxd', debianPackage: 'xxd' },
  { command: 'hexdump', debianPackage: 'bsdextrautils' },
  { command: 'tar', debianPackage: 'tar' },
  { command: 'unzip', debianPackage: 'unzip' },
  { command: 'gzip', debianPackage: 'gzip' },
  { command: 'git', debianPackage: 'git' },
  { command: 'curl', debianPackage: 'curl' },
  { command: 'wget', debianPackage: 'wget' },
  { command: 'nc', debianPackage: 'netcat-openbsd' },
  { command: 'dig', debianPackage: 'bind9-dnsutils' },
  { command: 'pstree', debianPackage: 'psmisc' },
  { command: 'convert', debianPackage: 'imagemagick' },
  { command: 'pdftotext', debianPackage: 'poppler-utils' },
  { command: 'mmls', debianPackage: 'sleuthkit' },
  { command: 'fls', debianPackage: 'sleuthkit' },
  { command: 'srch_strings', debianPackage: 'sleuthkit' },
  { command: 'exiftool', debianPackage: 'libimage-exiftool-perl' },
  { command: 'binwalk', debianPackage: 'binwalk' },
] as const;
