# The Python driver: the program that runs inside a sandbox as
# `/usr/bin/python3 -u -I -B -c <boot> <config-json>` and executes the agent's code.
# The host reads python-values.py and this file (and the others, python-interpreter.ts) once and writes
# them, in that order, on the boot program's stdin, with the code a driver compiled earlier when it has
# it (driver-bytecode.ts): the driver runs as the __main__ module either way.
#
# Processes: the driver (the "zygote") imports what user code commonly needs once, then forks
# workers: the agent's interpreter (fresh globals after every reset), a copy of it (the probe) that
# answers a judge's calls for a submission, a throw-away fresh interpreter for the gold solution, and
# the judge (in the evaluation sandbox's driver, which never runs the agent's code; a spare fresh
# worker is forked between requests for the next of these, and with the warm pool on, in both drivers,
# for every fresh worker: python-warm-pool.py; with "keep":true in the config, the evaluation driver keeps
# the worker of a clean gold or judge run for the next one: python-kept-worker.py). User code only ever
# runs in a worker.
#
# Host protocol (on the driver's private copies of the pipes, fds 1000/1001; fds 0 and 1 become
# /dev/null): the host first writes a random nonce line, then both sides exchange frames
# `<nonce> <length>\n<length bytes of JSON>`. Requests: `{"op":"reset"}` (answers `{"clean":bool}`, see
# clean_slate), `{"op":"ping"}`, `{"op":"fork"}` and `{"op":"drop"}` (branches of an episode: python-branches.py;
# reset, run and fork name their agent worker with "agent"), `{"op":"pool"}` (the spare worker kept warm
# for the next fresh one, with "warm":true in the config: python-warm-pool.py, and the kept worker),
# `{"op":"run","target":"agent"|"copy"|"fresh"|"judge","codes":[…],"wrap":bool,"timeout":s|[s per code],"cap":bytes}`
# (`copy` with `"stay":true` keeps the copy as the probe, with `"spend":true` the agent's worker itself is the
# probe and ends with it (a submission), `"speculate":{tests,names}` makes its last
# code the calls made ahead; `judge` with `"proxy":name`), `{"op":"call","call":{…},"timeout":s,"cap":bytes}`
# (one judge's call, in the probe; any other request ends the probe). A run answers
# `{"results":[{output,error,ok,…} per code],"restarted":bool,"note":…}`; during a judge's run the
# driver sends `{"call":{…}}` frames and reads one `{"op":"answer","answer":{…}}` frame for each.
#
# Worker protocol: a private socket pair (fd 1002) with 4-byte length-prefixed JSON; the worker's
# fd 1 and 2 are restored to private pipes (fds 1003/1004) before every code, so nothing user code
# does to sys.stdout, fd 1 or fd 2 can reach the host channel; the driver reads the pipes, keeps at
# most `cap` bytes (head and tail) and strips them as upstream did. The worker waits for the driver's
# `go` after each code's result, so each code's output is read before the next code writes any. A timeout
# first interrupts the code (KeyboardInterrupt, state kept) and kills every other process the driver
# started; if the code does not stop within the grace period, the worker is killed and a fresh one
# started (`restarted`).
#
# Safety: the driver makes itself a child subreaper (what its workers start stays its descendant,
# even after a double fork or a new session) and only ever kills its own descendants, so processes
# of the sandbox it did not start (a Docker container's shell sessions and the supervisor that
# started the driver) live on. It still refuses to run unless the host says it is contained and it
# sees a fresh pid namespace (a bwrap sandbox's own, or a Docker container's). It is not dumpable, so
# no process of the sandbox can ptrace it; on reset it clears what an episode can leave beside the
# file system (clean_slate).
#
# Never run it on the host: it is meant for a sandbox's own pid namespace.

import ast, atexit, builtins, gc, io, json, os, resource, select, shutil, signal, socket, struct, sys, time

# Modules user code often imports: loaded once here, so a worker forked from this process finds
# them in sys.modules and importing them costs nothing.
import bisect, collections, copy, functools, heapq, itertools, math, operator, random, re, string  # noqa

CONFIG = json.loads(sys.argv[1])


def fresh_pid_namespace():
    # A sandbox's pid namespace holds a handful of processes (its init, its helpers, this program);
    # a host's holds hundreds. Pid numbers say nothing: each docker exec uses up several of them.
    pids = [name for name in os.listdir('/proc') if name.isdigit()]
    return len(pids) < 64


# This program kills every process it started on reset: never outside a sandbox.
if not (CONFIG.get('contained') and fresh_pid_namespace()):
    sys.stderr.write('intercode python driver: refusing to run outside a fresh pid namespace\n')
    os._exit(2)


def become_subreaper():
    # PR_SET_CHILD_SUBREAPER: orphans of the workers' processes are re-parented here, not to init.
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0
    except (ImportError, OSError, AttributeError):
        return False


become_subreaper()


def set_dumpable(flag):
    # PR_SET_DUMPABLE 0: without CAP_SYS_PTRACE (the sandbox has none) no process can ptrace this
    # driver or open its /proc/<pid>/mem. Its workers set it back to 1: the kernel hides the exit codes
    # in /proc/<pid>/stat of processes that are not (which reap_killed_children reads), and a worker
    # runs the agent's code anyway.
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(4, flag, 0, 0, 0) == 0
    except (ImportError, OSError, AttributeError):
        return False


if not set_dumpable(0):
    sys.stderr.write('intercode python driver: cannot make itself non-dumpable\n')
    os._exit(2)

def frozen_fork():
    """os.fork() after gc.freeze(): every object this process holds moves to the collector's permanent
    generation, so no collection in the child (automatic, or the code's gc.collect()) walks them and
    writes to their pages, which the child would otherwise copy one by one (copy-on-write). They are
    still freed when their last reference goes; a reference cycle among them is not collected. The
    driver's objects live as long as it does; a worker freezes its own when it forks a copy (the probe
    of a submission, the branches of a fork)."""
    gc.freeze()
    return os.fork()


HOST_IN, HOST_OUT = 1000, 1001
CTL, OUT_W, ERR_W, NULL, FDS = 1002, 1003, 1004, 1005, 1006  # FDS: a fork's descriptors (python-branches.py)
MAX_FRAME = 64 * 1024 * 1024

os.dup2(0, HOST_IN)
os.dup2(1, HOST_OUT)
_null = os.open('/dev/null', os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.close(_null)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)


_RECV_BUFFER = None


def recv_chunk(sock):
    """Up to 1 MiB from a socket as a view of a buffer kept for the purpose (valid until the next
    call; empty at its end): sock.recv(1 << 20) allocates a 1 MiB block for every message however
    short (a mapping of its own, as the allocator serves blocks that large) and gives it back after,
    three system calls and a TLB flush each time."""
    global _RECV_BUFFER
    if _RECV_BUFFER is None:
        _RECV_BUFFER = bytearray(1 << 20)
    return memoryview(_RECV_BUFFER)[:sock.recv_into(_RECV_BUFFER)]


def read_exact(fd, n):
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b''.join(chunks)


def read_line(fd, limit=200):
    line = bytearray()
    while not line.endswith(b'\n'):
        chunk = os.read(fd, 1)
        if not chunk:
            raise EOFError
        line += chunk
        if len(line) > limit:
            raise ValueError('frame header too long')
    return bytes(line[:-1])


NONCE = read_line(HOST_IN).decode()
FRAME_START = NONCE.encode() + b' '


def host_recv():
    # The nonce and its space have a known length: one read, not one per byte (only the size, whose
    # length varies, is read a byte at a time, so nothing past the header is read ahead).
    if read_exact(HOST_IN, len(FRAME_START)) != FRAME_START:
        raise ValueError('bad frame from host')
    size = read_line(HOST_IN, 20).decode()
    if not size.isdigit() or int(size) > MAX_FRAME:
        raise ValueError('bad frame from host')
    return json.loads(read_exact(HOST_IN, int(size)))


def host_send(obj):
    data = json.dumps(obj).encode()
    write_all(HOST_OUT, b'%s %d\n' % (NONCE.encode(), len(data)) + data)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def pack(obj):
    data = json.dumps(obj).encode()
    return struct.pack('>I', len(data)) + data


