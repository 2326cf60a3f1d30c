# The mount helper: a small Python program that lives in a private mount namespace (started as
# `unshare --mount -- python3 -c <source>` by mount-helper.ts) and performs the mount system calls
# for every sandbox of one provider. Mounts made there never appear on the host and vanish when the
# helper exits, which it does as soon as its parent goes away (end of stdin, or the parent-death signal).
#
# Protocol: one JSON request per line on stdin, one JSON reply per line on stdout:
# `{"id":1,"op":"mount","dir":"…","lowers":["…"],"sizeBytes":123}` → `{"id":1,"ok":true,…}`.
#
# Mounts are quick system calls made here. The walks over a sandbox's layer (diff, digest, snapshot;
# in tree-walk.py, sent before this file) run in walker processes forked from the helper and reused
# from walk to walk, one walk at a time each, under the request's bounds:
# `{"bounds":{"timeoutMs":…,"maxEntries":…,"memoryBytes":…}}`. A walker has an address-space and a
# CPU-time limit and the helper kills it a second after its deadline, so a walk never blocks the
# helper (shared by every sandbox) and a walk that cannot finish ends with a reply
# `{"ok":false,"limit":"time|entries|memory|descriptors|changed|output|crashed","error":"…"}`.

import ctypes, json, os, resource, selectors, signal, subprocess, sys, time

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
PR_SET_PDEATHSIG = 1
libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
if os.getppid() == 1:
    sys.exit(0)

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2
mounted = {}

def fail(what):
    err = ctypes.get_errno()
    raise OSError(err, what + ': ' + os.strerror(err))

def do_mount(source, target, fstype, flags, data):
    if libc.mount(source.encode(), target.encode(), fstype.encode(), flags, data.encode()) != 0:
        fail('mount ' + fstype + ' on ' + target)

def do_umount(target):
    if libc.umount2(target.encode(), MNT_DETACH) != 0 and ctypes.get_errno() not in (22, 2):
        fail('umount ' + target)

# ---- Mounts (owned by the isolation part; the walks below are separate) ----------------------------
#
# Started as root, the helper is given INTERCODE_IDMAP_BASE=H: sandboxes then run in a user namespace
# that maps ids 0..65535 to the unprivileged host ids H..H+65535 (never host root). The helper creates
# that namespace once (a child process holds it; `userns` in the ping reply is its pid, whose
# /proc/<pid>/ns/user the sandboxes enter), and shows every layer through an idmapped mount with the
# same mapping (open_tree + mount_setattr(MOUNT_ATTR_IDMAP) + move_mount), so that files owned by
# root on disk are owned by H, which is root inside. The upper tmpfs is idmapped too, so the upper
# layer stores ids as the sandbox sees them (root is 0 there, as without the mapping), and the overlay
# is mounted with fs ids H so that it can create its work files through that mapping.

IDMAP_SPAN = 65536
# The same numbers on x86_64 and aarch64 (system calls added after the tables were unified).
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC, AT_RECURSIVE, AT_EMPTY_PATH = 1, 0o2000000, 0x8000, 0x1000
MOVE_MOUNT_F_EMPTY_PATH = 4
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV, MOUNT_ATTR_IDMAP = 0x1, 0x2, 0x4, 0x100000
AT_FDCWD = -100
CLONE_NEWUSER = 0x10000000
libc.syscall.restype = ctypes.c_long

class MountAttr(ctypes.Structure):
    _fields_ = [('attr_set', ctypes.c_uint64), ('attr_clr', ctypes.c_uint64),
                ('propagation', ctypes.c_uint64), ('userns_fd', ctypes.c_uint64)]

class CapHeader(ctypes.Structure):
    _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]

class CapData(ctypes.Structure):
    _fields_ = [('effective', ctypes.c_uint32), ('permitted', ctypes.c_uint32), ('inheritable', ctypes.c_uint32)]

idmap_base = int(os.environ.get('INTERCODE_IDMAP_BASE') or 0)
userns_pid = None
userns_fd = None

def start_userns(base):
    """Forks the holder of the sandboxes' user namespace and maps it; returns (pid, ns fd)."""
    go_r, go_w = os.pipe()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(go_w)
            os.close(ready_r)
            null = os.open('/dev/null', os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if libc.unshare(CLONE_NEWUSER) != 0:
                os._exit(1)
            os.write(ready_w, b'u')
            os.read(go_r, 1)  # end of file when the helper exits
        finally:
            os._exit(0)
    os.close(go_r)
    os.close(ready_w)
    if os.read(ready_r, 1) != b'u':
        raise OSError(1, 'cannot create the sandbox user namespace')
    os.close(ready_r)
    for name in ('uid_map', 'gid_map'):
        with open('/proc/%d/%s' % (pid, name), 'w') as fh:
            fh.write('0 %d %d\n' % (base, IDMAP_SPAN))
    return pid, os.open('/proc/%d/ns/user' % pid, os.O_RDONLY | os.O_CLOEXEC)

def idmapped_clone(source, target, readonly):
    """Attaches at `target` a recursive clone of `source` seen through the sandbox id mapping."""
    fd = libc.syscall(SYS_OPEN_TREE, AT_FDCWD, source.encode(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE)
    if fd < 0:
        fail('open_tree ' + source)
    try:
        attr = MountAttr(MOUNT_ATTR_IDMAP | (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV if readonly else 0), 0, 0, userns_fd)
        if libc.syscall(SYS_MOUNT_SETATTR, fd, b'', AT_EMPTY_PATH | AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)) != 0:
            fail('idmap ' + source)
        os.makedirs(target, exist_ok=True)
        if libc.syscall(SYS_MOVE_MOUNT, fd, b'', AT_FDCWD, target.encode(), MOVE_MOUNT_F_EMPTY_PATH) != 0:
            fail('move_mount ' + target)
    finally:
        os.close(fd)

def set_fs_ids(uid):
    """Sets the fs uid/gid (a change away from 0 drops the file capabilities: raise them again)."""
    libc.setfsgid(uid)
    libc.setfsuid(uid)
    header, data = CapHeader(0x20080522, 0), (CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        fail('capget')
    for word in data:
        word.effective = word.permitted
    if libc.capset(ctypes.byref(header), data) != 0:
        fail('capset')

# Idmapped clones of each sandbox's lower layers, kept from its mount to its umount (a reset reuses
# them; an unmount costs an RCU grace period): {dir: {index: layer}}.
layer_clones = {}

def idmapped_lowers(d, lowers):
    """The idmapped clones of `lowers` at d/l/<i>, made on first use."""
    clones = layer_clones.setdefault(d, {})
    out = []
    for i, layer in enumerate(lowers):
        target = os.path.join(d, 'l', str(i))
        if clones.get(i) != layer:
            if i in clones:
                do_umount(target)
                del clones[i]
            idmapped_clone(layer, target, True)
            clones[i] = layer
        out.append(target)
    return out

def mount_box(d, lowers, size):
    t, root = os.path.join(d, 't'), os.path.join(d, 'root')
    os.makedirs(t, exist_ok=True)
    os.makedirs(root, exist_ok=True)
    do_mount('tmpfs', t, 'tmpfs', MS_NOSUID | MS_NODEV, 'size=%d,mode=755' % size)
    os.mkdir(os.path.join(t, 'upper'), 0o755)
    os.mkdir(os.path.join(t, 'work'), 0o755)
    try:
        if userns_fd is not None:
            lowers = idmapped_lowers(d, lowers)
            upper = os.path.join(d, 'u')
            idmapped_clone(t, upper, False)
        else:
            upper = t
        opts = 'lowerdir=%s,upperdir=%s,workdir=%s' % (':'.join(lowers), os.path.join(upper, 'upper'), os.path.join(upper, 'work'))
        if userns_fd is not None:
            set_fs_ids(idmap_base)
        try:
            do_mount('overlay', root, 'overlay', 0, opts)
        finally:
            if userns_fd is not None:
                set_fs_ids(0)
    except OSError:
        if userns_fd is not None:
            do_umount(os.path.join(d, 'u'))
        do_umount(t)
        raise
    mounted[d] = True

def umount_box(d):
    do_umount(os.path.join(d, 'root'))
    if userns_fd is not None:
        do_umount(os.path.join(d, 'u'))
    do_umount(os.path.join(d, 't'))
    mounted.pop(d, None)

def mount_binds(d, sources):
    """Read-only idmapped clones of host directories at d/b/<i> (root mode; bwrap binds them)."""
    for i, source in enumerate(sources):
        idmapped_clone(source, os.path.join(d, 'b', str(i)), True)

def umount_binds(d):
    """Removes the idmapped clones of a sandbox's binds and lower layers (its final unmount)."""
    for i in layer_clones.pop(d, {}):
        do_umount(os.path.join(d, 'l', str(i)))
    try:
        names = os.listdir(os.path.join(d, 'b'))
    except OSError:
        return
    for name in names:
        do_umount(os.path.join(d, 'b', name))

if idmap_base:
    userns_pid, userns_fd = start_userns(idmap_base)

# ---- End of the mount part -------------------------------------------------------------------------

def usage(d):
    s = os.statvfs(os.path.join(d, 't'))
    return (s.f_blocks - s.f_bfree) * s.f_frsize

def snapshot_box(upper, dest, budget):
    # cp -a keeps whiteouts (character devices), opaque markers (trusted xattrs), owners and times;
    # it copies links as links and FIFOs as FIFOs, never reading through either.
    os.makedirs(dest, exist_ok=True)
    left = max(0.1, budget.deadline - time.monotonic())
    try:
        subprocess.run(['cp', '-a', '--preserve=all', upper + '/.', dest], check=True, capture_output=True,
                       timeout=left, preexec_fn=lambda: libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0))
    except subprocess.TimeoutExpired:
        raise WalkLimit('time', 'the snapshot did not finish within its time bound')
    except subprocess.CalledProcessError as ex:
        raise OSError('cp failed: ' + ex.stderr.decode('utf-8', 'replace').strip()[-500:])

def walk(req, budget):
    """The work of a walk request, in a walker process."""
    op = req['op']
    if op == 'diff':
        return {'changes': diff_tree(req['upper'], req['lowers'], budget)}
    if op == 'digest':
        return {'digests': digest_paths(req['root'], req['paths'], budget)}
    snapshot_box(req['upper'], req['dest'], budget)
    return {}

WALKS = ('diff', 'digest', 'snapshot')
MAX_REPLY = 256 << 20
MAX_IDLE = 4

def limit_reply(kind, message):
    return {'ok': False, 'limit': kind, 'error': message}

def serve_walks(r, w):
    """A walker process: one request line in on `r`, one reply line out on `w`, until end of file."""
    null = os.open('/dev/null', os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    as_hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    pending = b''
    while True:
        while b'\n' not in pending:
            chunk = os.read(r, 1 << 16)
            if not chunk:
                os._exit(0)
            pending += chunk
        line, pending = pending.split(b'\n', 1)
        retire = False
        req = None
        try:
            req = json.loads(line)
            bounds = req.get('bounds') or {}
            timeout = bounds.get('timeoutMs', 10000) / 1000.0
            memory = int(bounds.get('memoryBytes', 512 << 20))
            if as_hard != resource.RLIM_INFINITY: memory = min(memory, as_hard)
            resource.setrlimit(resource.RLIMIT_AS, (memory, as_hard))
            used = resource.getrusage(resource.RUSAGE_SELF)
            cpu = int(used.ru_utime + used.ru_stime + timeout) + 2
            if cpu_hard != resource.RLIM_INFINITY: cpu = min(cpu, cpu_hard)
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
            budget = Budget(int(bounds.get('maxEntries', 100000)), time.monotonic() + timeout)
            reply = walk(req, budget)
            reply['ok'] = True
        except WalkLimit as ex:
            reply = limit_reply(ex.kind, str(ex))
        except MemoryError:
            reply = limit_reply('memory', 'the walk needed more memory than its bound')
            retire = True
        except RecursionError:
            reply = limit_reply('memory', 'the walk went too deep')
            retire = True
        except Exception as ex:
            reply = {'ok': False, 'error': str(ex)}
        try:
            resource.setrlimit(resource.RLIMIT_AS, (as_hard, as_hard))
            reply['id'] = req.get('id') if isinstance(req, dict) else None
            # The reply line as the helper forwards it, after one byte: R (this walker retires) or K.
            data = memoryview((('R' if retire else 'K') + json.dumps(reply) + '\n').encode())
            while data:
                data = data[os.write(w, data):]
        except BaseException:
            os._exit(3)
        if retire:
            os._exit(0)

class Walker:
    """A walker process forked from the helper, reused for walk after walk; killed at a deadline."""

    def __init__(self):
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(req_w)
                os.close(rep_r)
                for other in walkers:
                    os.close(other.req)
                    os.close(other.rep)
                serve_walks(req_r, rep_w)
            finally:
                os._exit(3)
        os.close(req_r)
        os.close(rep_w)
        os.set_blocking(rep_r, False)
        self.pid, self.req, self.rep = pid, req_w, rep_r
        self.data = bytearray()
        self.job = None  # (request id, deadline, timeout) while busy
        walkers.append(self)
        sel.register(rep_r, selectors.EVENT_READ, self)

    def start(self, req, line):
        bounds = req.get('bounds') or {}
        timeout = bounds.get('timeoutMs', 10000) / 1000.0
        # The walker checks its own deadline; this one, a second later, is for a walker that cannot.
        self.job = (req.get('id'), time.monotonic() + timeout + 1.0, timeout)
        view = memoryview(line + b'\n')
        while view:
            view = view[os.write(self.req, view):]

    def end(self, status=None):
        """Kills the walker and forgets it; the status of a walker already dead when known."""
        walkers.remove(self)
        sel.unregister(self.rep)
        os.close(self.req)
        os.close(self.rep)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return os.waitpid(self.pid, 0)[1]

def send(reply):
    try:
        sys.stdout.write(json.dumps(reply) + '\n')
        sys.stdout.flush()
    except OSError:
        pass  # The parent is gone: the loop ends at the end of stdin.

def answer(walker, reply):
    reply['id'] = walker.job[0]
    walker.job = None
    send(reply)

def on_walker_output(walker):
    try:
        chunk = os.read(walker.rep, 1 << 20)
    except BlockingIOError:
        return
    if not chunk:
        status = walker.end()
        if walker.job is not None:
            answer(walker, limit_reply('crashed', 'the walk ended without a result (%s)' % describe(status)))
        return
    walker.data += chunk
    at = walker.data.find(b'\n')
    if at < 0:
        if len(walker.data) > MAX_REPLY:
            walker.end()
            answer(walker, limit_reply('output', 'the walk produced more than %d bytes' % MAX_REPLY))
        return
    retire = walker.data[:1] == b'R'
    line = bytes(walker.data[1:at + 1])
    walker.data = bytearray()
    if walker.job is not None:
        walker.job = None
        try:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
        except OSError:
            pass
    if retire or sum(1 for w in walkers if w.job is None) > MAX_IDLE:
        walker.end()

def start_walk(req, line):
    idle = [w for w in walkers if w.job is None]
    try:
        walker = idle[0] if idle else Walker()
        walker.start(req, line)
    except OSError as ex:
        send({'ok': False, 'error': 'cannot start the walk: ' + str(ex), 'id': req.get('id')})

def describe(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            return 'killed by signal %d: out of CPU time or memory' % sig
        return 'killed by signal %d' % sig
    return 'exit %d' % os.WEXITSTATUS(status)

def handle(req):
    op = req['op']
    if op == 'mount':
        if userns_fd is not None:
            mount_binds(req['dir'], req.get('binds') or [])
        try:
            mount_box(req['dir'], req['lowers'], req['sizeBytes'])
        except OSError:
            umount_binds(req['dir'])
            raise
        return {}
    if op == 'remount':
        umount_box(req['dir'])
        mount_box(req['dir'], req['lowers'], req['sizeBytes'])
        return {}
    if op == 'umount':
        umount_box(req['dir'])
        umount_binds(req['dir'])
        return {}
    if op == 'usage':
        return {'bytes': usage(req['dir'])}
    if op == 'ping':
        return {'pid': os.getpid(), 'userns': userns_pid}
    raise ValueError('unknown op ' + str(op))

def on_request(line):
    try:
        req = json.loads(line)
    except ValueError:
        return
    if req.get('op') in WALKS:
        start_walk(req, line)
        return
    try:
        reply = handle(req)
        reply['ok'] = True
    except Exception as ex:
        reply = {'ok': False, 'error': str(ex)}
    reply['id'] = req.get('id')
    send(reply)

sel = selectors.DefaultSelector()
walkers = []
pending = bytearray()
os.set_blocking(0, False)
sel.register(0, selectors.EVENT_READ, None)
while True:
    now = time.monotonic()
    deadlines = [w.job[1] for w in walkers if w.job is not None]
    wait = min(deadlines) - now if deadlines else None
    for key, _ in sel.select(None if wait is None else max(0.0, wait)):
        if key.data is not None:
            if key.data in walkers:
                on_walker_output(key.data)
            continue
        try:
            chunk = os.read(0, 1 << 16)
        except BlockingIOError:
            continue
        if not chunk:
            # The parent is gone: walks still running are of no use to anyone.
            for walker in list(walkers):
                walker.end()
            break
        pending += chunk
        while True:
            at = pending.find(b'\n')
            if at < 0:
                break
            line = bytes(pending[:at])
            del pending[:at + 1]
            on_request(line)
    else:
        now = time.monotonic()
        for walker in [w for w in walkers if w.job is not None and w.job[1] <= now]:
            timeout = walker.job[2]
            walker.end()
            answer(walker, limit_reply('time', 'the walk did not finish within %g s' % timeout))
        continue
    break

for d in list(mounted):
    try:
        umount_box(d)
        umount_binds(d)
    except OSError: pass
