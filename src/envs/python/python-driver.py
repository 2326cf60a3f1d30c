# The Python driver: the program that runs inside a sandbox as
# `/usr/bin/python3 -u -I -B -c <source> <config-json>` and executes the agent's code.
# The host reads python-values.py and this file once and sends them, in that order, as that argument
# (python-interpreter.ts).
#
# Processes: the driver (the "zygote") imports what user code commonly needs once, then forks
# workers: the agent's interpreter (fresh globals after every reset), a copy of it (the probe) that
# answers a judge's calls for a submission, a throw-away fresh interpreter for the gold solution, and
# the judge (in the evaluation sandbox's driver, which never runs the agent's code; a spare fresh
# worker is forked between requests for the next of these). User code only ever runs in a worker.
#
# Host protocol (on the driver's private copies of the pipes, fds 1000/1001; fds 0 and 1 become
# /dev/null): the host first writes a random nonce line, then both sides exchange frames
# `<nonce> <length>\n<length bytes of JSON>`. Requests: `{"op":"reset"}` (answers `{"clean":bool}`, see
# clean_slate), `{"op":"ping"}`,
# `{"op":"run","target":"agent"|"copy"|"fresh"|"judge","codes":[…],"wrap":bool,"timeout":s|[s per code],"cap":bytes}`
# (`copy` with `"stay":true` keeps the copy as the probe, `"speculate":{tests,names}` makes its last
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

import ast, builtins, io, json, os, resource, select, shutil, signal, socket, struct, sys, time

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

HOST_IN, HOST_OUT = 1000, 1001
CTL, OUT_W, ERR_W, NULL = 1002, 1003, 1004, 1005
MAX_FRAME = 64 * 1024 * 1024

os.dup2(0, HOST_IN)
os.dup2(1, HOST_OUT)
_null = os.open('/dev/null', os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.close(_null)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)


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


def host_recv():
    nonce, _, size = read_line(HOST_IN).decode().partition(' ')
    if nonce != NONCE or not size.isdigit() or int(size) > MAX_FRAME:
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


# ---------------------------------------------------------------- worker (runs user code)


def wrap_rule(code):
    """Upstream's rule: print the value of an expression action."""
    tree = ast.parse(code.strip())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.Import)):
            return code
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'print':
            return code
    if code.strip().startswith('assert'):
        return code
    return 'print(%s)' % code


def describe(error):
    if type(error) is AgentRaised:
        return error.text
    try:
        text = str(error)
    except BaseException:
        text = '<unprintable %s>' % type(error).__name__
    if isinstance(error, Exception):
        return 'Error: ' + text
    # SystemExit, KeyboardInterrupt and friends: upstream had no defined answer; name the type.
    return 'Error: %s%s' % (type(error).__name__, ': ' + text if text else '')


def worker_main():
    me = os.getpid()
    state = {'globals': {'__name__': '__main__', '__builtins__': builtins}, 'me': me}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit = CONFIG.get('memory_bytes')
    if limit:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass
    # No POSIX message queue: it would outlive the episode in the driver's IPC namespace, unlisted.
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    ctl = socket.socket(fileno=CTL)
    reader = ctl.makefile('rb')

    def send(obj):
        ctl.sendall(pack(obj))

    def receive():
        header = reader.read(4)
        if len(header) < 4:
            os._exit(0)
        return json.loads(reader.read(struct.unpack('>I', header)[0]))

    def ask(call):
        # The judge's way to the agent's interpreter: a speculated answer when the call is the next one
        # the probe made ahead of it (same function, same arguments, in the same order), else through the
        # driver and the host, one answer each. A call that differs from the next speculated one ends
        # the speculation (diverged: the host runs the tests again without it).
        spec = state.get('spec')
        if spec and call.get('kind') == 'call':
            if spec[0].get('call') == [call.get('name'), call.get('args'), call.get('kwargs')]:
                state['used'] += 1
                return answered(spec.pop(0))
            state['spec'] = None
            state['diverged'] = True
        send({'k': 'call', 'call': call})
        answer = receive().get('answer')
        if type(answer) is dict and type(answer.get('spec')) is list and 'used' not in state:
            state['spec'], state['used'] = answer['spec'], 0
            return ask(call)
        return answered(answer)

    def answered(answer):
        if type(answer) is not dict:
            raise AgentRaised('Error: the test process died')
        for stream, key in ((sys.stdout, 'out'), (sys.stderr, 'err')):
            if type(answer.get(key)) is str:
                stream.write(answer[key])
        if 'exc' in answer:
            text = answer['exc'] if type(answer['exc']) is str else ''
            raise AgentRaised(text if text.startswith('Error') else 'Error: ' + text)
        return decode(answer.get('value'), ask)

    state['receive'] = receive
    while True:
        request = receive()
        if request.get('done'):
            if state.get('copy'):
                os._exit(0)
            continue
        if request.get('isolated'):
            pid = os.fork()
            if pid:
                _, status = os.waitpid(pid, 0)
                send({'k': 'forkdone', 'status': status})
                continue
            os.setpgid(0, 0)
            state['me'] = os.getpid()
            send({'k': 'pid', 'pid': state['me']})
            run_batch(request, state, send)
            if not request.get('stay'):
                os._exit(0)
            state['copy'] = True  # a probe: it answers calls until told it is done
            continue
        if 'call' in request:
            result = run_one(request['call'], False, state, serve_call)
            if os.getpid() != state['me']:
                os._exit(0)
            result.update(k='r', i=0)
            send(result)
            send({'k': 'end'})
            continue
        if request.get('judge'):
            state['globals'] = judge_namespace(ask, request.get('proxy'))
        run_batch(request, state, send)
        if request.get('judge'):
            state.pop('spec', None)
            state.pop('used', None)
            state.pop('diverged', None)


def serve_call(call, state):
    """A call the judge asked for, on the agent's side: the function's or an opaque result's answer, plain."""
    store = state.setdefault('opaque', {})

    def keep(obj):
        ref = len(store) + 1
        store[ref] = obj
        return ref

    def resolve(tag, key):
        found = store if tag == 'x' else state['globals'] if tag == 'g' else vars(builtins)
        if key not in found:
            raise ValueError('no such value')
        return found[key]

    kind = call.get('kind') if type(call) is dict else None
    if kind == 'call':
        name = call.get('name')
        namespace = state['globals']
        if type(name) is not str or name not in namespace:
            raise NameError("name '%s' is not defined" % (name,))
        args = [decode(arg, resolve=resolve) for arg in call.get('args') or ()]
        kwargs = {str(key): decode(arg, resolve=resolve) for key, arg in call.get('kwargs') or ()}
        value = namespace[name](*args, **kwargs)
    elif kind == 'opaque':
        obj = resolve('x', call.get('ref'))
        how = {'iter': list, 'len': len, 'bool': bool, 'str': str, 'repr': repr, 'float': float,
               'int': int, 'index': operator.index}.get(call.get('how'))
        if how is None:
            raise ValueError('no such question')
        value = how(obj)
    else:
        raise ValueError('no such call')
    return {'value': encode(value, keep)}


def run_batch(request, state, send):
    codes = request['codes']
    for index, code in enumerate(codes):
        if request.get('speculate') and index == len(codes) - 1:
            result = run_one(request['speculate'], False, state, speculate)
        else:
            result = run_one(code, request.get('wrap', False), state)
        if os.getpid() != state['me']:
            os._exit(0)  # a process the user code forked came back here: it has no business in the loop
        result['k'] = 'r'
        result['i'] = index
        send(result)
        if index < len(codes) - 1:
            # In step with the driver: it has read this code's output before the next code writes any.
            state['receive']()
    send({'k': 'end', 'used': state.get('used'), 'diverged': state.get('diverged', False)})


class Unknown(Exception):
    pass


def literal_calls(source, names):
    """The calls of names in a test, in the order Python makes them, while their arguments are literals:
    ([(name, args, kwargs)], complete)."""
    found = []

    def visit(node):
        if isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.NamedExpr)):
            if any(isinstance(inner, ast.Call) for inner in ast.walk(node)):
                raise Unknown
            return
        if isinstance(node, ast.Call):
            visit(node.func)
            for arg in node.args:
                visit(arg)
            for keyword in node.keywords:
                visit(keyword.value)
            if isinstance(node.func, ast.Name) and node.func.id in names:
                if any(isinstance(arg, ast.Starred) for arg in node.args) or any(k.arg is None for k in node.keywords):
                    raise Unknown
                args = [ast.literal_eval(arg) for arg in node.args]
                kwargs = [(k.arg, ast.literal_eval(k.value)) for k in node.keywords]
                found.append((node.func.id, args, kwargs))
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    try:
        visit(ast.parse(source))
        return found, True
    except (Unknown, ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return found, False


def speculate(spec, state):
    """In the probe, before the judge asks: the calls of the submitted function that the tests make with
    literal arguments, made in that order (each test's up to the first that raises), each with what it
    returned or raised and wrote. The judge uses an answer only for the very call it was made for."""
    store = state.setdefault('opaque', {})

    def keep(obj):
        store[len(store) + 1] = obj
        return len(store)

    names = [name for name in spec.get('names') or () if type(name) is str]
    namespace = state['globals']
    entries = []
    saved = sys.stdout, sys.stderr
    try:
        for test in spec.get('tests') or ():
            calls, complete = literal_calls(test, names) if type(test) is str else ([], False)
            for name, args, kwargs in calls:
                entry = {'call': [name, [encode(arg) for arg in args], [[key, encode(value)] for key, value in kwargs]]}
                out, err = io.StringIO(), io.StringIO()
                sys.stdout, sys.stderr = out, err
                try:
                    if name not in namespace:
                        raise NameError("name '%s' is not defined" % name)
                    entry['value'] = encode(namespace[name](*args, **dict(kwargs)), keep)
                except KeyboardInterrupt:
                    raise
                except BaseException as error:
                    entry['exc'] = describe(error)
                finally:
                    sys.stdout, sys.stderr = saved
                entry['out'], entry['err'] = str(out.getvalue()), str(err.getvalue())
                entries.append(entry)
                if 'exc' in entry:
                    break  # the test ends there
            if not complete:
                break  # what comes next depends on answers: the judge asks for it
    finally:
        sys.stdout, sys.stderr = saved
    return {'value': entries}


def reap_killed_children():
    # Children of the user code that the driver's sweep killed (SIGKILL) stay zombies of this process,
    # holding process slots, until someone waits for them; other children are the user's to wait for.
    try:
        with open('/proc/self/task/%d/children' % os.getpid()) as listing:
            children = listing.read().split()
    except OSError:
        return
    for child in children:
        try:
            with open('/proc/%s/stat' % child) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
            if fields[0] == 'Z' and int(fields[49]) == signal.SIGKILL:
                os.waitpid(int(child), os.WNOHANG)
        except (OSError, ValueError, IndexError):
            pass


def run_one(code, wrap, state, serve=None):
    reap_killed_children()
    try:
        os.dup2(OUT_W, 1)
        os.dup2(ERR_W, 2)
        os.dup2(NULL, 0)
    except OSError:
        return {'broken': 'the interpreter lost its output channels'}
    out = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, 'w', closefd=False), 65536), encoding='utf-8', errors='backslashreplace')
    err = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, 'w', closefd=False), 65536), encoding='utf-8', errors='backslashreplace')
    sys.stdout, sys.stderr = out, err
    result = {}
    try:
        if wrap and serve is None and not code.strip().startswith('def '):
            try:
                code = wrap_rule(code)
            except BaseException as error:
                return {'action_error': 'Error executing action: %s' % (error,)}
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            if serve is None:
                exec(code, state['globals'])
            else:
                result = serve(code, state)
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except BaseException as error:
        if os.getpid() != state['me']:
            os._exit(0)
        result = {'exc': describe(error)}
    finally:
        for stream in (out, err):
            try:
                stream.flush()
            except BaseException:
                pass
    return result


# ---------------------------------------------------------------- zygote (talks to the host)


class Worker:
    def __init__(self, pid, ctl, out_r, err_r):
        self.pid, self.ctl, self.out_r, self.err_r = pid, ctl, out_r, err_r
        self.buffer = b''

    def close(self):
        for fd in (self.out_r, self.err_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.ctl.close()


def spawn_worker():
    zygote_end, worker_end = socket.socketpair()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            set_dumpable(1)
            os.setpgid(0, 0)
            os.dup2(worker_end.fileno(), CTL)
            os.dup2(out_w, OUT_W)
            os.dup2(err_w, ERR_W)
            null = os.open('/dev/null', os.O_RDWR)
            os.dup2(null, NULL)
            os.closerange(3, CTL)
            os.closerange(NULL + 1, 65536)
            worker_main()
        finally:
            os._exit(70)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    worker_end.close()
    os.close(out_w)
    os.close(err_w)
    for fd in (out_r, err_r):
        os.set_blocking(fd, False)
    return Worker(pid, zygote_end, out_r, err_r)


class Capture:
    """Keeps the first and the last half of the cap, counts the rest."""

    def __init__(self, cap):
        self.half = max(1, cap // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def push(self, data):
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.half:
                del self.tail[: len(self.tail) - self.half]

    def text(self, strip=True):
        tail = bytes(self.tail[-self.half:]) if len(self.tail) > self.half else bytes(self.tail)
        dropped = self.total - len(self.head) - len(tail)
        head = bytes(self.head).decode('utf-8', 'replace')
        if dropped <= 0:
            text, cut = head + tail.decode('utf-8', 'replace'), False
        else:
            marker = '\n[... %d bytes of output omitted: %d bytes in total ...]\n' % (dropped, self.total)
            text, cut = head + marker + tail.decode('utf-8', 'replace'), True
        return (text.strip() if strip else text), cut


def drain(fd, capture, budget=8 << 20):
    while budget > 0:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        capture.push(data)
        budget -= len(data)
    return True


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def process_table():
    """pid -> (state, parent, process group) of every process in /proc."""
    table = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
            table[int(name)] = (fields[0], int(fields[1]), int(fields[2]))
        except (OSError, IndexError, ValueError):
            continue
    return table


def descendants(table=None):
    """Every live process below this one (zombies left out: they have no children and cannot be killed)."""
    children = {}
    for pid, (state, parent, _) in (process_table() if table is None else table).items():
        if state not in ('Z', 'X'):
            children.setdefault(parent, []).append(pid)
    found = []
    queue = [os.getpid()]
    while queue:
        for child in children.get(queue.pop(), ()):
            found.append(child)
            queue.append(child)
    return found


def others(keep):
    return [pid for pid in descendants() if pid not in keep]


def kill_others(keep):
    """Kills every process this driver started except those in keep (and the spare worker); False when
    they keep coming."""
    keep = set(keep) | {1, os.getpid()} | ({spare.pid} if spare is not None else set())
    for _ in range(50):
        pids = others(keep)
        if not pids:
            return True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap()
        time.sleep(0.002)
    return False


def kill_everything():
    """Kills every process this driver started, however deep."""
    me = os.getpid()
    table = process_table()
    mine = set(descendants(table))
    if all(pid in mine or pid in (1, me) or state in ('Z', 'X') for pid, (state, _, _) in table.items()):
        # The namespace holds nothing else (a bwrap sandbox's own): one kill, no fork slips through.
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    else:
        # Others share it (a Docker container): whole process groups at once (a fork bomb's children
        # share one), never this driver's own group; then the sweep below.
        for group in {table[pid][2] for pid in mine if pid in table} - {os.getpgrp()}:
            try:
                os.killpg(group, signal.SIGKILL)
            except OSError:
                pass
    deadline = time.time() + 5
    while time.time() < deadline:
        pids = others({1, me})
        reap()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap()
        time.sleep(0.002)


def exit_text(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = 'signal %d' % number
        hint = ' (out of memory?)' if number == signal.SIGKILL else ''
        return 'the interpreter was killed by %s%s' % (name, hint)
    return 'the interpreter exited with code %d' % os.WEXITSTATUS(status) if os.WIFEXITED(status) else 'the interpreter stopped'


def dev_listing():
    """name -> (inode, mode, device, owner, group) of each entry of /dev (a bwrap sandbox's own tmpfs)."""
    listing = {}
    for name in os.listdir('/dev'):
        st = os.lstat('/dev/' + name)
        listing[name] = (st.st_ino, st.st_mode, st.st_rdev, st.st_uid, st.st_gid)
    return listing


BOOT_DEV = dev_listing()  # before any worker ran: what /dev is to be at the start of every episode
IPC_REMOVE = {'shm': 'shmctl', 'sem': 'semctl', 'msg': 'msgctl'}


def ipc_ids(kind):
    try:
        with open('/proc/sysvipc/' + kind) as table:
            return [int(line.split()[1]) for line in table.read().splitlines()[1:] if line.strip()]
    except (OSError, ValueError, IndexError):
        return None


def clean_slate():
    """Once every process of the episode is dead: what lives beside the file system (which the host
    checks) back to how the driver found it: /dev as at boot, /dev/shm empty (POSIX shared memory and
    semaphores), no System V IPC object. (POSIX message queues cannot be made: the workers' RLIMIT_MSGQUEUE
    is 0.) False when something cannot be, or is not as it was: the host then starts a new process tree."""
    clean = True
    try:
        now = set(os.listdir('/dev'))
        for name in now - set(BOOT_DEV):
            path = '/dev/' + name
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        clean = dev_listing() == BOOT_DEV
        for name in os.listdir('/dev/shm'):
            path = '/dev/shm/' + name
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        clean = clean and not os.listdir('/dev/shm')
    except OSError:
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
    except (ImportError, OSError):
        return False
    for kind, remove in IPC_REMOVE.items():
        for ident in ipc_ids(kind) or ():
            if kind == 'sem':
                libc.semctl(ident, 0, 0)  # IPC_RMID
            else:
                getattr(libc, remove)(ident, 0, None)
        if ipc_ids(kind) != []:
            clean = False
    return clean


spare = None  # a fresh worker forked ahead, between requests, for the next gold or judge run
agent = None
probe = None  # pid of the copy of the agent's worker that answers the judge's calls, while one does
releasing = False  # a probe was told to end: the agent's worker still has to report it gone


def take_spare():
    """The spare worker if it is still there (a fork of this driver that ran nothing), else a new one."""
    global spare
    worker, spare = spare, None
    if worker is not None:
        try:
            with open('/proc/%d/stat' % worker.pid) as stat:
                alive = stat.read().rsplit(')', 1)[1].split()[0] not in ('Z', 'X')
        except (OSError, IndexError):
            alive = False
        if alive:
            return worker
        worker.close()
    return spawn_worker()


def fresh_agent(slate=False):
    """A new agent worker once every process was killed; slate: a new episode's (see clean_slate)."""
    global agent, probe, releasing, spare
    if spare is not None:
        spare.close()
        spare = None
    probe = None
    releasing = False
    if agent is not None:
        agent.close()
        agent = None
    kill_everything()
    clean = clean_slate() if slate else True
    agent = spawn_worker()
    return clean


def run(request):
    """Runs codes in the agent worker, a copy of it (isolated) or a fresh worker; one result per code."""
    global agent
    target = request['target']
    codes = request['codes']
    limits = request['timeout']
    limits = [float(limit) for limit in limits] if isinstance(limits, list) else [float(limits)] * len(codes)
    timeout = limits[0] if limits else 1.0
    grace = float(request.get('grace', 1.0))
    cap = int(request['cap'])
    global probe
    settled_fresh = False
    tail = {}
    if target in ('fresh', 'judge'):
        worker = take_spare()
    else:
        if agent is None:
            fresh_agent()
        elif target != 'probe' and settle_agent():
            settled_fresh = True
        worker = agent
    stay = bool(request.get('stay')) and target == 'copy'
    if target == 'probe':
        message = {'call': request.get('call')}
    else:
        message = {'codes': codes, 'wrap': bool(request.get('wrap')), 'isolated': target == 'copy',
                   'stay': stay, 'judge': target == 'judge', 'proxy': request.get('proxy'),
                   'speculate': request.get('speculate') if stay else None}
    try:
        worker.ctl.sendall(pack(message))
    except OSError:
        pass
    results = []
    lost = None  # why the worker (or the copy) is gone
    copied = target in ('copy', 'probe')  # the code runs in a fork of the agent's worker
    runner = probe if target == 'probe' else None if target == 'copy' else worker.pid
    out, err = Capture(cap), Capture(cap)
    began = time.time()
    deadline = began + timeout
    interrupted = False
    stray = False  # a timeout happened: processes the code started may still be running
    streams = [worker.ctl, worker.out_r, worker.err_r]
    pidfd = None
    if not copied:
        try:
            pidfd = os.pidfd_open(worker.pid)
            streams.append(pidfd)
        except (AttributeError, OSError):
            pidfd = None
    finished = False
    while not finished:
        wait = max(0.0, deadline - time.time())
        try:
            ready, _, _ = select.select(streams, [], [], wait)
        except InterruptedError:
            continue
        if worker.out_r in ready and not drain(worker.out_r, out):
            streams.remove(worker.out_r)
        if worker.err_r in ready and not drain(worker.err_r, err):
            streams.remove(worker.err_r)
        if pidfd is not None and pidfd in ready and worker.ctl not in ready:
            lost = 'died'
            break
        if worker.ctl in ready:
            try:
                data = worker.ctl.recv(1 << 20)
            except OSError:
                data = b''
            if not data:
                lost = 'eof'
                break
            worker.buffer += data
            while len(worker.buffer) >= 4:
                size = struct.unpack('>I', worker.buffer[:4])[0]
                if size > MAX_FRAME:
                    lost = 'garbage'
                    break
                if len(worker.buffer) < 4 + size:
                    break
                try:
                    msg = json.loads(worker.buffer[4:4 + size])
                except ValueError:
                    msg = {'k': 'garbage'}
                worker.buffer = worker.buffer[4 + size:]
                kind = msg.get('k') if isinstance(msg, dict) else None
                if kind == 'pid' and runner is None:
                    runner = int(msg['pid'])
                elif kind == 'r' and len(results) < len(codes):
                    drain(worker.out_r, out)
                    drain(worker.err_r, err)
                    results.append(make_result(msg, out, err, interrupted, timeout))
                    results[-1]['ms'] = (time.time() - began) * 1000
                    out, err = Capture(cap), Capture(cap)
                    timeout = limits[min(len(results), len(limits) - 1)]
                    began = time.time()
                    deadline = began + timeout
                    interrupted = False
                    if msg.get('broken'):
                        lost = 'broken'
                    elif len(results) < len(codes):
                        try:
                            worker.ctl.sendall(pack({'go': True}))
                        except OSError:
                            pass
                elif kind == 'end':
                    tail = {'used': msg.get('used'), 'diverged': msg.get('diverged')} if target == 'judge' else {}
                    if not copied or stay or target == 'probe':
                        finished = True
                elif kind == 'call' and target == 'judge':
                    # The judge asks the agent's side, through the host; its clock stops meanwhile.
                    paused = time.time()
                    host_send({'call': msg.get('call')})
                    try:
                        reply = host_recv()
                    except EOFError:
                        kill_everything()
                        os._exit(0)
                    answer = reply.get('answer') if isinstance(reply, dict) else None
                    try:
                        worker.ctl.sendall(pack({'answer': answer}))
                    except OSError:
                        pass
                    deadline += time.time() - paused
                elif kind == 'forkdone':
                    if len(results) < len(codes):
                        lost = 'copy'
                    finished = True
                else:
                    lost = 'garbage'
                if lost or finished:
                    break
            if lost:
                break
        if time.time() >= deadline and not finished:
            if not interrupted and runner is not None:
                interrupted = True
                stray = True
                kill_others({runner} | ({agent.pid} if agent is not None else set()))
                try:
                    os.kill(runner, signal.SIGINT)
                except OSError:
                    pass
                deadline = time.time() + grace
            else:
                lost = 'timeout'
                break
    if pidfd is not None:
        os.close(pidfd)
    if stray and not lost:
        # What the interrupted code forked after the first sweep (a fork bomb's survivors).
        kill_others({worker.pid, runner} | ({agent.pid} if agent is not None else set()))
    note = None
    restarted = False
    if lost:
        drain(worker.out_r, out)
        drain(worker.err_r, err)
        why = None
        if lost == 'timeout':
            why = 'the action timed out after %g s and was killed' % timeout
        elif lost in ('broken', 'garbage'):
            why = 'the interpreter lost its control channel'
        if copied:
            probe = None
            if runner is not None:
                try:
                    os.killpg(runner, signal.SIGKILL)
                except OSError:
                    pass
            if lost != 'copy':
                # Wait for the agent worker to report its copy gone; if it cannot, restart it.
                if not wait_forkdone(worker, 5.0):
                    fresh_agent()
                    restarted = True
            why = why or 'the test process died'
        else:
            status = None
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                _, status = os.waitpid(worker.pid, 0)
            except ChildProcessError:
                pass
            if why is None:
                why = exit_text(status) if status is not None else 'the interpreter stopped'
            if target == 'agent':
                fresh_agent()
                restarted = True
        if len(results) < len(codes):
            text, truncated = out.text()
            results.append({'output': text if lost == 'timeout' else None, 'error': 'Error: ' + why, 'ok': False,
                            'timed_out': lost == 'timeout', 'truncated': truncated, 'died': True})
        while len(results) < len(codes):
            results.append({'output': None, 'error': 'Error: not run: ' + why, 'ok': False, 'died': True})
        note = why
    if stay and not lost:
        probe = runner
    if target in ('fresh', 'judge'):
        worker.close()
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(worker.pid, 0)
        except ChildProcessError:
            pass
    reap()
    reply = {'results': results, 'restarted': restarted or (settled_fresh and target == 'agent'), 'note': note}
    reply.update(tail)
    return reply


def call(request):
    """One call of the judge's, answered by the probe (a copy of the agent's worker)."""
    if probe is None or agent is None:
        return {'results': [{'output': None, 'error': 'Error: the test process died', 'ok': False, 'died': True}],
                'restarted': False, 'note': 'no probe'}
    return run(dict(request, target='probe', codes=[None]))


def end_probe():
    """Tells the probe to end (any request but a call does): the agent's worker reports it gone, and the
    next run in it first waits for that report (see settle_agent), so no host request waits for it."""
    global probe, releasing
    if probe is None:
        return
    probe = None
    try:
        agent.ctl.sendall(pack({'done': True}))
        releasing = True
    except OSError:
        fresh_agent()


def settle_agent():
    """Before the agent's worker runs anything: the report of an ended probe, or a fresh worker. True
    when the worker had to be replaced (its globals are gone)."""
    global releasing
    if not releasing:
        return False
    releasing = False
    if wait_forkdone(agent, 5.0):
        return False
    fresh_agent()
    return True


def wait_forkdone(worker, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        ready, _, _ = select.select([worker.ctl], [], [], max(0.0, deadline - time.time()))
        if not ready:
            continue
        data = worker.ctl.recv(1 << 20)
        if not data:
            return False
        worker.buffer += data
        while len(worker.buffer) >= 4:
            size = struct.unpack('>I', worker.buffer[:4])[0]
            if len(worker.buffer) < 4 + size:
                break
            msg = worker.buffer[4:4 + size]
            worker.buffer = worker.buffer[4 + size:]
            if b'"forkdone"' in msg:
                return True
    return False


def make_result(msg, out, err, interrupted, timeout):
    out_text, out_cut = out.text()
    err_text, err_cut = err.text()
    result = {'truncated': out_cut or err_cut, 'raw_output': out_text, 'bytes': out.total + err.total}
    if 'action_error' in msg:
        result.update(output=None, error=msg['action_error'], ok=False, action_error=True)
    elif 'exc' in msg:
        error = msg['exc']
        if interrupted:
            error = 'Error: the action timed out after %g s and was interrupted' % timeout
        result.update(output=None, error=error, ok=False)
    elif 'broken' in msg:
        result.update(output=None, error='Error: ' + msg['broken'], ok=False)
    else:
        result.update(output=out_text, error=err_text, ok=True)
    if 'value' in msg:
        result['value'] = msg['value']
    if 'value' in msg or 'exc' in msg:
        # What a call wrote, as it wrote it: the judge adds it to the output of the test that called.
        result['stdout'] = out.text(False)[0]
        result['stderr'] = err.text(False)[0]
    if interrupted:
        result['timed_out'] = True
        result['output'] = out_text
    return result


def main():
    global spare
    host_send({'ready': True, 'pid': os.getpid()})
    while True:
        try:
            request = host_recv()
        except EOFError:
            kill_everything()
            os._exit(0)
        op = request.get('op')
        if op != 'call':
            end_probe()
        if op == 'reset':
            host_send({'ok': True, 'clean': fresh_agent(slate=True)})
        elif op == 'run':
            host_send(run(request))
            if request.get('target') in ('fresh', 'judge') and spare is None:
                spare = spawn_worker()  # after the answer: off the next run's way
        elif op == 'call':
            host_send(call(request))
        elif op == 'ping':
            host_send({'ok': True})
        else:
            host_send({'error': 'unknown op %r' % (op,)})


main()
