/**
 * A session command that prints the pid of every process of the sandbox still running besides its
 * init, this command and its ancestors (a shell's controller, a supervisor): what earlier commands
 * left running in the background (`cmd &`, `setsid cmd`), one per line; nothing once they are done.
 *
 * Each command of a session runs in its own child of the shell's controller, so `jobs` in one
 * command never sees the background jobs of an earlier one: this is what a caller that waits for
 * them (the Bash environment before it compares file systems) asks instead. Builtins only (no
 * process is started), its variables unset at the end; zombies are not counted.
 */
export const LEFTOVER_PROCESSES_COMMAND = [
  '__lp_mine=" 1 "; __lp_pid=$BASHPID;',
  'while [[ $__lp_pid != 0 && $__lp_pid != 1 ]]; do',
  '__lp_mine+="$__lp_pid "; IFS= read -r __lp_stat < "/proc/$__lp_pid/stat" || break;',
  `__lp_stat=\${__lp_stat##*) }; __lp_stat=\${__lp_stat#* }; __lp_pid=\${__lp_stat%% *};`,
  'done;',
  'for __lp_dir in /proc/[0-9]*; do',
  `__lp_pid=\${__lp_dir#/proc/}; [[ $__lp_mine == *" $__lp_pid "* ]] && continue;`,
  `IFS= read -r __lp_stat < "$__lp_dir/stat" 2>/dev/null || continue; __lp_stat=\${__lp_stat##*) };`,
  '[[ $__lp_stat == Z* || $__lp_stat == X* ]] || builtin echo "$__lp_pid";',
  'done;',
  'builtin unset -v __lp_mine __lp_pid __lp_stat __lp_dir',
].join(' ');
