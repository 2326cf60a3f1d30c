# The mount helper: a small Python program that lives in a private mount namespace (started as
# `unshare --mount -- python3 -c <source>` by mount-helper.ts) and performs the mount system calls
# for every sandbox of one provider. Mounts made there never appear on the host and vanish when the
# helper exits, which it does as soon as its parent goes away (end of stdin, or the parent-death signal).
#
# Protocol: one JSON request per line on stdin, one JSON reply per line on stdout:
# `{"id":1,"op":"mount","dir":"…","lowers":["…"],"sizeBytes":123}` → `{"id":1,"ok":true,…}`.
#
# Mounts are quick system calls made here. The walks over a sandbox's layer (diff, digest, snapshot)
# run each in a child process of their own (the walks are in tree-walk.py, sent before this file),
# under the request's bounds: `{"bounds":{"timeoutMs":…,"maxEntries":…,"memoryBytes":…}}`. The child
# has an address-space limit and the helper kills it at its deadline, so a walk never blocks the
# helper (shared by every sandbox) and a walk that cannot finish ends with a reply
# `{"ok":false,"limit":"time|entries|memory|descriptors|changed|output|crashed","error":"…"}`.

import ctypes, json, os, resource, selectors, signal, subprocess, sys

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

def mount_box(d, lowers, size):
    t, root = os.path.join(d, 't'), os.path.join(d, 'root')
    os.makedirs(t, exist_ok=True)
    os.makedirs(root, exist_ok=True)
    do_mount('tmpfs', t, 'tmpfs', MS_NOSUID | MS_NODEV, 'size=%d,mode=755' % size)
    os.mkdir(os.path.join(t, 'upper'), 0o755)
    os.mkdir(os.path.join(t, 'work'), 0o755)
    opts = 'lowerdir=%s,upperdir=%s,workdir=%s' % (':'.join(lowers), os.path.join(t, 'upper'), os.path.join(t, 'work'))
    try:
        do_mount('overlay', root, 'overlay', 0, opts)
    except OSError:
        do_umount(t)
        raise
    mounted[d] = True

def umount_box(d):
    do_umount(os.path.join(d, 'root'))
    do_umount(os.path.join(d, 't'))
    mounted.pop(d, None)

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
    """The work of a walk request, in its child process."""
    op = req['op']
    if op == 'diff':
        return {'changes': diff_tree(req['upper'], req['lowers'], budget)}
    if op == 'digest':
        return {'digests': digest_paths(req['root'], req['paths'], budget)}
    snapshot_box(req['upper'], req['dest'], budget)
    return {}

WALKS = ('diff', 'digest', 'snapshot')
MAX_REPLY = 256 << 20

def run_child(req, w):
    """In the forked child: the walk under its bounds, its reply written to `w`, then exit."""
    reply = None
    try:
        os.dup2(w, 1)
        os.close(w)
        null = os.open('/dev/null', os.O_RDONLY)
        os.dup2(null, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        bounds = req.get('bounds') or {}
        timeout = bounds.get('timeoutMs', 10000) / 1000.0
        memory = int(bounds.get('memoryBytes', 512 << 20))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu = int(timeout) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        budget = Budget(int(bounds.get('maxEntries', 100000)), time.monotonic() + timeout)
        reply = walk(req, budget)
        reply['ok'] = True
    except WalkLimit as ex:
        reply = {'ok': False, 'limit': ex.kind, 'error': str(ex)}
    except MemoryError:
        reply = {'ok': False, 'limit': 'memory', 'error': 'the walk needed more memory than its bound'}
    except RecursionError:
        reply = {'ok': False, 'limit': 'memory', 'error': 'the walk went too deep'}
    except Exception as ex:
        reply = {'ok': False, 'error': str(ex)}
    try:
        data = (json.dumps(reply) + '\n').encode()
        view = memoryview(data)
        while view:
            view = view[os.write(1, view):]
        os._exit(0)
    except BaseException:
        os._exit(3)

class Job:
    """A walk running in a child process: its pipe, deadline and the reply it is writing."""

    def __init__(self, req):
        self.id = req.get('id')
        bounds = req.get('bounds') or {}
        self.timeout = bounds.get('timeoutMs', 10000) / 1000.0
        # The child checks its own deadline; this one, a little later, is for a child that cannot.
        self.deadline = time.monotonic() + self.timeout + 1.0
        r, w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(r)
            run_child(req, w)
        os.close(w)
        os.set_blocking(r, False)
        self.fd = r
        self.data = bytearray()

def send(reply):
    sys.stdout.write(json.dumps(reply) + '\n')
    sys.stdout.flush()

def finish(job, reply):
    sel.unregister(job.fd)
    os.close(job.fd)
    jobs.pop(job.fd, None)
    try:
        os.kill(job.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(job.pid, 0)
    reply['id'] = job.id
    send(reply)

def on_output(job):
    try:
        chunk = os.read(job.fd, 1 << 20)
    except BlockingIOError:
        return
    if chunk:
        job.data += chunk
        if len(job.data) > MAX_REPLY:
            finish(job, {'ok': False, 'limit': 'output', 'error': 'the walk produced more than %d bytes' % MAX_REPLY})
        return
    try:
        reply = json.loads(job.data.decode())
    except ValueError:
        _, status = os.waitpid(job.pid, 0)
        job.pid = None
        reply = {'ok': False, 'limit': 'crashed', 'error': 'the walk ended without a result (%s)' % describe(status)}
        finish_reaped(job, reply)
        return
    finish(job, reply)

def finish_reaped(job, reply):
    sel.unregister(job.fd)
    os.close(job.fd)
    jobs.pop(job.fd, None)
    reply['id'] = job.id
    send(reply)

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
        mount_box(req['dir'], req['lowers'], req['sizeBytes'])
        return {}
    if op == 'remount':
        umount_box(req['dir'])
        mount_box(req['dir'], req['lowers'], req['sizeBytes'])
        return {}
    if op == 'umount':
        umount_box(req['dir'])
        return {}
    if op == 'usage':
        return {'bytes': usage(req['dir'])}
    if op == 'ping':
        return {'pid': os.getpid()}
    raise ValueError('unknown op ' + str(op))

def on_request(line):
    try:
        req = json.loads(line)
    except ValueError:
        return
    if req.get('op') in WALKS:
        try:
            job = Job(req)
        except OSError as ex:
            send({'ok': False, 'error': 'cannot start the walk: ' + str(ex), 'id': req.get('id')})
            return
        jobs[job.fd] = job
        sel.register(job.fd, selectors.EVENT_READ, job)
        return
    try:
        reply = handle(req)
        reply['ok'] = True
    except Exception as ex:
        reply = {'ok': False, 'error': str(ex)}
    reply['id'] = req.get('id')
    send(reply)

sel = selectors.DefaultSelector()
jobs = {}
pending = bytearray()
stdin_open = True
os.set_blocking(0, False)
sel.register(0, selectors.EVENT_READ, None)
while stdin_open or jobs:
    now = time.monotonic()
    wait = min([job.deadline for job in jobs.values()], default=now + 3600) - now
    for key, _ in sel.select(max(0.0, wait)):
        if key.data is not None:
            if key.fd in jobs:
                on_output(key.data)
            continue
        try:
            chunk = os.read(0, 1 << 16)
        except BlockingIOError:
            continue
        if not chunk:
            stdin_open = False
            sel.unregister(0)
            # Walks still running are of no use to anyone once the parent is gone.
            for job in list(jobs.values()):
                finish(job, {'ok': False, 'error': 'the helper is closing'})
            continue
        pending += chunk
        while True:
            at = pending.find(b'\n')
            if at < 0:
                break
            line = bytes(pending[:at])
            del pending[:at + 1]
            on_request(line)
    now = time.monotonic()
    for job in [job for job in jobs.values() if job.deadline <= now]:
        finish(job, {'ok': False, 'limit': 'time', 'error': 'the walk did not finish within %g s' % job.timeout})

for d in list(mounted):
    try: umount_box(d)
    except OSError: pass
