import { shellQuote } from '../core/shell-quote.js';
import { LEFTOVER_PROCESSES_COMMAND } from './leftover-processes.js';

/**
 * The protocol of a persistent bash session, the same on every backend (design notes:
 * docs/architecture/sandbox-internals.md#the-persistent-shell).
 *
 * The long-lived bash is a **controller** that never evaluates a command: it reads one request at a
 * time from its input descriptor (the command up to a NUL byte, then a fresh random nonce of
 * {@link NONCE_LENGTH} characters), runs the command in a forked child, waits for it, reads the
 * nonce, and prints `nonce:exit-code:cwd` + NUL. The
 * child holds no copy of the controller's input (stdin is /dev/null and every other inherited
 * descriptor is closed before anything runs), so the nonce that waits there is out of its reach;
 * the backend starts the controller non-dumpable, so its memory, its descriptors and ptrace are
 * closed to the command's processes too. The exit code is the controller's `wait` (the kernel's
 * word), the directory is the one the child reported.
 *
 * The session's state (variables, functions, aliases, options, umask, traps, directory stack) goes
 * from one child to the next as a file the controller never evaluates: each child restores it,
 * evaluates its command, and writes it back.
 */

/** Where a shell's children keep the session state: a tmpfs of the sandbox outside its file system diff. */
const STATE_FILE = '/dev/.intercode-state-$$';

/**
 * Special variables of bash that are not part of a session's state (counters, the process's own
 * identity, read-only values): never unset in a child, never written to the state.
 */
const SPECIAL_VARIABLES =
  'BASH|BASHOPTS|BASHPID|BASH_ALIASES|BASH_ARGC|BASH_ARGV|BASH_ARGV0|BASH_CMDS|BASH_COMMAND|BASH_EXECUTION_STRING|BASH_LINENO|BASH_LOADABLES_PATH|BASH_REMATCH|BASH_SOURCE|BASH_SUBSHELL|BASH_VERSINFO|BASH_VERSION|COMP_WORDBREAKS|DIRSTACK|EPOCHREALTIME|EPOCHSECONDS|EUID|FUNCNAME|GROUPS|HISTCMD|LINENO|PIPESTATUS|PPID|RANDOM|SECONDS|SHELLOPTS|SRANDOM|UID|_';

/**
 * The declarations of `declare -p` that a child cannot evaluate: read-only variables, and arrays
 * bash keeps itself (assigning one ends the shell). Each is cut from a state before it is evaluated.
 */
const READ_ONLY_DECLARATIONS = [
  'declare -r BASHOPTS=',
  'declare -a BASH_ARGC=(',
  'declare -a BASH_ARGV=(',
  'declare -a BASH_LINENO=(',
  'declare -a BASH_SOURCE=(',
  'declare -ar BASH_VERSINFO=(',
  'declare -ir EUID=',
  'declare -ir PPID=',
  'declare -r SHELLOPTS=',
  'declare -ir UID=',
]
  .map((line) => `$'\\n'${shellQuote(line)}`)
  .join(' ');

/** The special variables a child can unset before writing its state (the rest are read-only). */
const UNSETTABLE_SPECIALS =
  'BASH_ALIASES BASH_ARGV0 BASH_CMDS BASH_COMMAND BASH_EXECUTION_STRING BASH_REMATCH BASH_SUBSHELL BASHPID COMP_WORDBREAKS DIRSTACK EPOCHREALTIME EPOCHSECONDS FUNCNAME GROUPS HISTCMD LINENO PIPESTATUS RANDOM SECONDS SRANDOM _';

/**
 * Writes the session's state after the directory header: the variables (`declare -p`, without the
 * special ones, `PWD` and `OLDPWD`), then the functions, aliases, umask, traps and positional
 * parameters, then the `shopt` options, then the `set` options, each section ending with a NUL.
 * The controller runs it once at start, in a subshell, for the baseline a child compares each
 * section with: a section equal to the baseline needs no evaluation (a child starts with the
 * controller's state), which keeps a round trip short.
 */
const DUMP = `builtin unset -v \${!__ic_@} PWD OLDPWD ${UNSETTABLE_SPECIALS};
if [[ -v POSIXLY_CORRECT ]]; then __ic_p=$POSIXLY_CORRECT; builtin unset -v POSIXLY_CORRECT; fi;
builtin declare -p; builtin printf '\\0';
builtin declare -f; builtin alias -p; builtin umask -p; builtin trap -p;
builtin printf 'builtin set --'; builtin printf ' %q' "\${@:2}"; builtin printf '\\n';
if [[ -v __ic_p ]]; then builtin printf 'builtin export POSIXLY_CORRECT=%q; builtin unset -v __ic_p\\n' "$__ic_p"; fi;
builtin printf '\\0'; builtin shopt -p; builtin printf '\\0'; builtin set +o; builtin printf '\\0';`;

/** Where the controller keeps the baseline of the state sections, written once at start. */
const BASELINE_FILE = `${STATE_FILE}.base`;

/** The variable names the baseline's subshell saw (`compgen -v`), kept beside it. */
const NAMES_FILE = `${STATE_FILE}.names`;

/**
 * After the baseline's sections, the names of the controller's variables a child unsets before it
 * evaluates a variables section that differs from the baseline (all but the special ones, `PWD`,
 * `OLDPWD` and the controller's own), each ending with a NUL. The controller's variables do not
 * change after its start but for its own, so they are listed once rather than by every child.
 */
const BASELINE_NAMES = `builtin compgen -v >| "${NAMES_FILE}"; builtin mapfile -t __ic_n < "${NAMES_FILE}";
for __ic_y in "\${__ic_n[@]}"; do case $__ic_y in ${SPECIAL_VARIABLES}|PWD|OLDPWD|__ic_*) ;; *) builtin printf '%s\\0' "$__ic_y" ;; esac; done;`;

/** The baseline's subshell, forked at the controller's start: `__ic_p` is its pid until it is read. */
const BASELINE_FORK = `( builtin set --; { ${DUMP} ${BASELINE_NAMES} } >| "${BASELINE_FILE}" ) & __ic_p=$!;`;

/**
 * The baseline at the start of a controller that renews: once started again after a renewal
 * (`__ic_k` set, in its own process) it keeps the baseline it read at its first start (the same
 * controller script, env and prelude, the same state: the same bytes) and writes its files again from memory (a renewal's
 * /dev is new) instead of forking the subshell; its first start forks it. What it keeps of the
 * names file is read with the baseline (`baselineRead`). The names go out as one string: bash writes
 * its standard output a line at a time, so printing them one per line would cost a system call each.
 */
const BASELINE_KEPT_OR_FORK = `if [[ -n \${__ic_k-} ]]; then
builtin printf '%s\\0' "\${__ic_bl[@]}" "\${__ic_bn[@]}" >| "${BASELINE_FILE}"; builtin printf -v __ic_x '%s\\n' "\${__ic_nm[@]}"; builtin printf '%s' "$__ic_x" >| "${NAMES_FILE}"; __ic_p='';
else ${BASELINE_FORK} fi;`;

/** After the first reply: the baseline read once its subshell is done (and its names, for a controller that keeps them). */
function baselineRead(keeps: boolean): string {
  return `if [[ -n $__ic_p ]]; then builtin wait "$__ic_p"; builtin mapfile -d '' -t __ic_bl < "${BASELINE_FILE}"; ${keeps ? `builtin mapfile -t __ic_nm < "${NAMES_FILE}"; ` : ''}__ic_bn=("\${__ic_bl[@]:4}"); __ic_bl=("\${__ic_bl[@]:0:4}"); __ic_p=''; fi;`;
}

/**
 * One command in a forked child. Its descriptors are the controller's, which closed everything but
 * 0-2 and its input at start: the child closes its copy of the input, and stdin is /dev/null. It
 * restores the state (directory stack and OLDPWD from the header, then each section that differs
 * from the controller's baseline; for the variables, the ones it inherited are unset first),
 * evaluates the command with stderr on the reply stream, and writes the state back: a header of
 * NUL-separated fields (the directory, `OLDPWD` as `+value` or `-`, the rest of the directory
 * stack, an empty field), then the sections of {@link DUMP}. Its exit status is the command's, kept
 * as `$1` while the state is written.
 */
const CHILD = oneLine(`(
builtin set --; builtin unset -v BASH_EXECUTION_STRING;
if ((__ic_i != 0)); then exec {__ic_i}<&-; fi;
__ic_a=(); builtin mapfile -d '' -t __ic_a < "${STATE_FILE}";
__ic_ds=(); __ic_x=2; if [[ -n \${__ic_a[0]-} ]]; then __ic_ds=("\${__ic_a[0]}"); fi;
while [[ -n \${__ic_a[__ic_x]-} ]]; do __ic_ds+=("\${__ic_a[__ic_x]}"); __ic_x=$((__ic_x + 1)); done;
if ((\${#__ic_ds[@]} > 1)) || [[ -n \${__ic_ds[0]-} && \${__ic_ds[0]} != "$PWD" ]]; then
  __ic_x=$((\${#__ic_ds[@]} - 1)); CDPATH= builtin cd -- "\${__ic_ds[__ic_x]}";
  while ((__ic_x > 0)); do __ic_x=$((__ic_x - 1)); CDPATH= builtin pushd -- "\${__ic_ds[__ic_x]}" >/dev/null; done;
fi;
case \${__ic_a[1]-} in -) builtin unset -v OLDPWD; builtin declare -x OLDPWD ;; +*) builtin declare -x OLDPWD="\${__ic_a[1]#+}" ;; esac;
__ic_x=$((\${#__ic_ds[@]} + 2)); __ic_s=\${__ic_a[__ic_x]-};
if [ -n "$__ic_s" ] && [ "$__ic_s" != "\${__ic_bl[0]-}" ]; then
  for __ic_y in ${READ_ONLY_DECLARATIONS}; do
    __ic_z=\${__ic_s%%"$__ic_y"*};
    if ((\${#__ic_z} < \${#__ic_s})); then __ic_y=\${__ic_s:\${#__ic_z}+1}; __ic_s=$__ic_z$'\\n'\${__ic_y#*$'\\n'}; fi;
  done;
  builtin unset -v "\${__ic_bn[@]}"; builtin command eval "$__ic_s";
fi;
for __ic_y in 1 2 3; do
  __ic_s=\${__ic_a[__ic_x + __ic_y]-};
  if [ -n "$__ic_s" ] && [ "$__ic_s" != "\${__ic_bl[__ic_y]-}" ]; then builtin command eval "$__ic_s"; fi;
done;
builtin unset -v __ic_a __ic_bl __ic_bn __ic_d __ic_d0 __ic_ds __ic_i __ic_k __ic_n __ic_nm __ic_p __ic_r __ic_s __ic_x __ic_y __ic_z;
builtin eval "$__ic_c" 2>&1;
builtin set -- "$?" "$@";
{ builtin printf '%s\\0' "$PWD"; if [[ -v OLDPWD ]]; then builtin printf '+%s\\0' "$OLDPWD"; else builtin printf -- '-\\0'; fi;
  builtin printf '%s\\0' "\${DIRSTACK[@]:1}" ''; ${DUMP}
} >| "${STATE_FILE}";
builtin trap - EXIT;
builtin exit "$1"
) </dev/null`);

/**
 * The controller: `bash -c <this> bash <input fd>`. At start it closes every descriptor but 0-2 and
 * its input (so no child inherits one) and writes the baseline of the state sections in a
 * background subshell, read after the first reply (the first command has no state to compare). It
 * reads the directory a child reported as data, without blocking (a FIFO put in place of the state
 * file cannot hold it), and keeps the previous one when there is none. An empty command needs no
 * child: it is answered at once (exit code 0), which is how a new shell shows it is ready. The
 * {@link LEFTOVER_PROCESSES_COMMAND} needs none either: the controller runs that fixed, read-only
 * scan of /proc itself (it evaluates nothing of the request, it only compares it with the scan's
 * {@link WIRE_TOKENS} token), so a caller waiting for background jobs pays no state restore and no
 * fork per check. One line, so that the
 * messages of a command's errors say `line 1` of it, as `bash -c` does.
 */
function controllerScript(prelude: string, renews: boolean): string {
  // A controller that renews keeps its baseline across its restarts (in its process).
  return oneLine(`exec 2>/dev/null;
${prelude ? `${prelude};` : ''}
__ic_i=$1; while :; do __ic_d=$PWD; __ic_d0=$PWD;
for __ic_x in /proc/$$/fd/*; do __ic_x=\${__ic_x##*/}; case $__ic_x in 0|1|2|"$__ic_i") ;; *) builtin eval "exec $__ic_x>&-" ;; esac; done;
: >| "${STATE_FILE}";
${renews ? BASELINE_KEPT_OR_FORK : BASELINE_FORK}
while IFS= read -r -d '' -u "$__ic_i" __ic_c; do
if [[ -z $__ic_c ]]; then __ic_r=0; elif ${renews ? `[[ $__ic_c == ${shellQuote(WIRE_TOKENS.renew)} ]]; then ${END_THE_REST} elif` : ''} [[ $__ic_c == ${shellQuote(WIRE_TOKENS.leftover)} ]]; then { ${LEFTOVER_PROCESSES_COMMAND}; }; __ic_r=0; elif [[ $__ic_c == ${shellQuote(WIRE_TOKENS.export)} ]]; then __ic_r=0; else ${CHILD}; __ic_r=$?; fi;
IFS= read -r -N ${NONCE_LENGTH} -u "$__ic_i" __ic_n || break;
if [[ $__ic_c == ${shellQuote(WIRE_TOKENS.export)} ]]; then ${STATE_EXPORT} fi;
[[ -z $__ic_c ]] || { IFS= read -r -d '' -n 4096 -t 1 __ic_x <> "${STATE_FILE}" && [[ -n $__ic_x ]] && __ic_d=$__ic_x; };
builtin printf '%s:%d:%s\\0' "$__ic_n" "$__ic_r" "$__ic_d";
${baselineRead(renews)}
${renews ? `if [[ $__ic_c == ${shellQuote(WIRE_TOKENS.renew)} ]]; then ((__ic_r == 0)) && IFS= read -r -u "$__ic_i" __ic_x && [[ $__ic_x == go ]] && builtin cd -- "$__ic_d0" && builtin unset -v OLDPWD && __ic_k=1 && exec 2>/dev/null && continue 2; builtin exit 1; fi;` : ''}
done; break; done`);
}

/**
 * Process ids a new controller takes at its start (its baseline's subshell) that one started again
 * after a renewal does not (it keeps its baseline in its process): a
 * renewal's pid numbering skips them, so that the commands after it get the pids they get in a new
 * sandbox.
 */
export const RESTART_SKIPPED_PIDS = 1;

/**
 * A request the controller answers itself, when it renews (`controllerArgs`' `renews`): it ends
 * every other process of the sandbox (a kill of all it may signal, which in its pid namespace is
 * everything but bwrap's init; its own children waited for; then until /proc shows no other
 * process, for up to a thousand rounds), goes to `/`, and answers 0, or 1 when a process stayed. After
 * a 0 it waits for a line: `go` (the backend has put a fresh root in place, `renew-root.py`) makes it
 * start itself again in its initial directory, a new controller with a new state, as a new sandbox's
 * would be; anything else ends it. It starts again in its own process: it goes back to the start of its
 * script (its error stream opened again on the new /dev/null), which costs no
 * program start. The controller only ever runs builtins and no command can change it, so that is the
 * controller a new sandbox starts, its state byte for byte; no library is preloaded into it (the
 * backend exports `LD_PRELOAD` in its prelude, for the programs it starts), which could have made
 * something at its start that a renewal's new /dev lacks (libfaketime's shared clock files in /dev/shm).
 */
export const RENEW_COMMAND = '# intercode: renew the sandbox in place';

/** The controller's end of every other process (see {@link RENEW_COMMAND}); sets `__ic_r`. */
const END_THE_REST = `__ic_r=1; builtin kill -9 -1; builtin wait;
for ((__ic_y = 0; __ic_y < 1000; __ic_y++)); do __ic_z=0;
for __ic_x in /proc/[0-9]*; do __ic_x=\${__ic_x#/proc/}; [[ $__ic_x == 1 || $__ic_x == $$ ]] || { __ic_z=1; break; }; done;
if ((__ic_z == 0)); then __ic_r=0; break; fi; builtin kill -9 -1; done; builtin cd /;`;

/**
 * A request the controller answers itself (it only compares it, as for
 * {@link LEFTOVER_PROCESSES_COMMAND}): the session's state as the last child wrote it, one field per
 * line, each quoted with `printf %q` (reusable as a shell word whatever bytes it holds). No child
 * runs, so nothing of the session changes (no trap fires, no variable moves). Exit code 1 when the
 * state is past {@link MAX_STATE_BYTES} or {@link MAX_STATE_FIELDS}. What {@link stateImportCommand}
 * takes back, in a new shell of a copy of the sandbox (`Sandbox.fork`).
 */
export const STATE_EXPORT_COMMAND = '# intercode: export the session state';

/** Characters of a request's nonce (`__IC_` and 32 hex digits): the controller reads it in one call. */
export const NONCE_LENGTH = 37;

/**
 * The requests the controller answers itself, as they travel to it: a short comment line in place
 * of each fixed text callers send ({@link RENEW_COMMAND}, {@link STATE_EXPORT_COMMAND},
 * {@link LEFTOVER_PROCESSES_COMMAND}; `wireCommand` in `shell-request.ts`). The controller reads a
 * request's command a byte per system call (it must not read past the NUL that ends it), so the
 * leftover-process scan's 600 bytes cost more than the scan itself; a token costs a few. A command
 * that is a token itself travels with a space in front: still a comment, run as any command.
 */
export const WIRE_TOKENS = {
  renew: '#!ic renew',
  export: '#!ic export',
  leftover: '#!ic leftover',
} as const;

/** The largest session state that is exported, bytes. */
export const MAX_STATE_BYTES = 16 * 1024 * 1024;
/** The most fields a session state that is exported may have (the directory stack is one field per entry). */
const MAX_STATE_FIELDS = 4_096;

/**
 * The export, run by the controller after it has read the request's nonce (so that a state
 * file swapped for a link to the controller's own input finds nothing there to read). The file is
 * opened read-write and read with a 1 s timeout per field, as the controller reads the directory:
 * a FIFO put in its place cannot hold the controller.
 */
const STATE_EXPORT = `__ic_y=0; __ic_z=0; while IFS= read -r -d '' -t 1 __ic_x; do
__ic_y=$((__ic_y + \${#__ic_x} + 1)); __ic_z=$((__ic_z + 1));
if ((__ic_y > ${MAX_STATE_BYTES} || __ic_z > ${MAX_STATE_FIELDS})); then __ic_r=1; break; fi;
builtin printf '%q\\n' "$__ic_x"; done <> "${STATE_FILE}";`;

/**
 * The command that puts an exported state (the lines of a {@link STATE_EXPORT_COMMAND} reply) in
 * place in a new shell: it writes the state file and ends its child before the child would write
 * the file itself (`exit` ends that command only), so the next command starts from that state.
 * Nothing of it is evaluated but the quoted words the export printed.
 */
export function stateImportCommand(words: readonly string[]): string {
  return `builtin printf '%s\\0' ${words.join(' ')} >| "${STATE_FILE}"; builtin exit 0`;
}

/** Joins the lines of a script (each ends where a new line may follow without a separator). */
function oneLine(script: string): string {
  return script
    .split('\n')
    .map((line) => line.trim())
    .join(' ');
}

/**
 * The arguments of the controller bash (after the binary): `inputFd` is the descriptor the requests
 * arrive on, one that no other process of the sandbox holds; `renews`: it answers {@link RENEW_COMMAND}.
 */
export function controllerArgs(prelude: string, inputFd: number, renews = false): string[] {
  return ['--norc', '--noprofile', '-c', controllerScript(prelude, renews), 'bash', String(inputFd)];
}

/**
 * The first command of a (re)started shell: back to the working directory it had, if not the initial
 * one; otherwise the empty command, which the controller answers without a child.
 */
export function returnToCwd(cwd: string, initial: string): string {
  return cwd === initial ? '' : `cd -- ${shellQuote(cwd)} 2>/dev/null`;
}
