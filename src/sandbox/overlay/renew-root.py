# Renewing a bwrap sandbox in place (loaded after mount-helper.py, in one program with it; see
# docs/architecture/sandbox-internals.md#renewing-in-place). A reset used to start a new bwrap: some
# 20 ms of CPU (a process start from Node, setpriv, nsenter, bwrap with seven namespaces, the shell),
# most of an episode's cost. When the sandbox is clean apart from its files, its namespaces can stay:
# the shell's controller ends every other process of the sandbox and waits, the helper mounts a fresh
# overlay and makes it the root of the sandbox's mount namespace (with clones of the sandbox's /proc and
# binds, and a new /dev, as bwrap made them), and the controller starts itself again.
#
# Anything a fresh sandbox would not have makes the renewal refuse (the caller then starts a new
# bwrap as before): a process other than bwrap's init and the controller, a socket, a System V or
# POSIX IPC object, a controller whose limits, priority, scheduling or CPU set a command changed, or a
# mount that is not one the sandbox was started with. Process ids start again where a new sandbox's
# start (`ns_last_pid`).

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID = 0x20000, 0x08000000, 0x10000000, 0x20000000
SYS_PIVOT_ROOT = {'x86_64': 155, 'aarch64': 41}.get(os.uname().machine)
SYS_IOPRIO_GET = {'x86_64': 252, 'aarch64': 31}.get(os.uname().machine)
NS_GET_USERNS = 0xb701
RENEW_TIMEOUT_S = 10
libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
libc.unshare.argtypes = [ctypes.c_int]

class Refused(Exception):
    """The sandbox holds something a fresh one would not: start a new one instead."""

def read_text(path):
    with open(path) as fh:
        return fh.read()

def children(pid):
    out = []
    for task in os.listdir('/proc/%d/task' % pid):
        out += [int(p) for p in read_text('/proc/%d/task/%s/children' % (pid, task)).split()]
    return out

def controller_of(init):
    """The controller: bwrap's init's only child, with no child of its own."""
    kids = children(init)
    if len(kids) != 1:
        raise Refused('%d processes besides the shell' % max(0, len(kids) - 1))
    if children(kids[0]):
        raise Refused('the shell has a child')
    return kids[0]

def check_quiet(init):
    """The controller, once checked alone in the sandbox with nothing a new sandbox would not have
    (the backend compared its limits and scheduling, which /proc shows, before asking)."""
    ctl = controller_of(init)
    # The I/O priority, which no file shows, is the one every process of the backend inherits.
    ioprio = (libc.syscall(SYS_IOPRIO_GET, 1, ctl), libc.syscall(SYS_IOPRIO_GET, 1, 0)) if SYS_IOPRIO_GET else (0, 0)
    if ioprio[0] != ioprio[1]:
        raise Refused('the shell\'s limits or scheduling changed')
    # The network namespace's own counts: no socket of any family, no TCP connection in TIME_WAIT
    # (the socket tables in /proc/net/tcp are walked whole, for every namespace: milliseconds). Never
    # compared with the start: when the controller starts, bwrap's netlink socket may still be counted.
    counts = {}
    for line in read_text('/proc/%d/net/sockstat' % ctl).splitlines():
        words = line.split()
        for key, value in zip(words[1::2], words[2::2]):
            counts[words[0] + key] = value
    if counts.get('sockets:used') != '0' or counts.get('TCP:tw') != '0':
        raise Refused('a socket is open or waiting to close')
    return ctl

def top_mounts(init):
    """Mount points whose parent is the sandbox's root mount, in the order of its mountinfo."""
    rows = [line.split(' ') for line in read_text('/proc/%d/mountinfo' % init).splitlines()]
    roots = [row[0] for row in rows if row[4] == '/']
    if len(roots) != 1:
        raise Refused('the root is mounted more than once')
    return [row[4] for row in rows if row[1] == roots[0] and row[4] != '/']

def attach_clone(source, target, recursive):
    """Attaches at `target` a new clone of the mount at `source` (with the mounts below it when
    `recursive`). Clones rather than moves: new mounts list in mountinfo in the order they are made,
    so the sandbox's list reads as a new sandbox's (`df`, `mount` print it)."""
    flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (AT_RECURSIVE if recursive else 0)
    fd = libc.syscall(SYS_OPEN_TREE, AT_FDCWD, source.encode(), flags)
    if fd < 0:
        fail('open_tree ' + source)
    try:
        if libc.syscall(SYS_MOVE_MOUNT, fd, b'', AT_FDCWD, target.encode(), MOVE_MOUNT_F_EMPTY_PATH) != 0:
            fail('move_mount ' + target)
    finally:
        os.close(fd)

def setns(fd, kind, what):
    if libc.setns(fd, kind) != 0:
        fail('setns ' + what)

def in_container(pid, work, what):
    """Runs `work(fds)` in a process forked into the pid namespace of the docker container whose first
    process is host pid `pid` (`fds`: its pid and IPC namespaces, open; see in_pid_namespace)."""
    fds = {}
    try:
        for kind in ('pid', 'ipc'):
            fds[kind] = os.open('/proc/%d/ns/%s' % (pid, kind), os.O_RDONLY | os.O_CLOEXEC)
        in_pid_namespace(fds, lambda: work(fds), what)
    finally:
        for fd in fds.values():
            os.close(fd)

def reuse_container(pid, last):
    """For a docker container that a trusted reset keeps (or a new one, before its first command):
    refuses when its IPC namespace holds a System V object, else starts its pid numbering again after
    `last` (its init), so that its next processes get the pids a new container's do. The work runs in a
    process forked into the container's pid namespace (ns_last_pid applies to the writer's own)."""
    def renumber(fds):
        setns(fds['ipc'], CLONE_NEWIPC, 'ipc')
        check_sysvipc()
        set_last_pid(last)
    in_container(pid, renumber, 'the renumbering')

def number_container(pid, last):
    """The container's next process gets the first free pid after `last` (a shell's start: whatever
    docker's exec took before it, its controller's pid is the same in every container)."""
    in_container(pid, lambda fds: set_last_pid(last), 'the numbering')

def check_sysvipc():
    """No System V object in the IPC namespace this process is in (/proc/sysvipc shows the reader's)."""
    for name in ('shm', 'sem', 'msg'):
        if len(read_text('/proc/sysvipc/' + name).splitlines()) > 1:
            raise Refused('a System V %s object exists' % name)

def check_ipc(at):
    """No System V object and no POSIX message queue in the IPC namespace this process entered (its
    queues listed in a mqueue file system mounted at `at` for the while)."""
    check_sysvipc()
    do_mount('mqueue', at, 'mqueue', MS_NOSUID | MS_NODEV, '')
    try:
        if os.listdir(at):
            raise Refused('a POSIX message queue exists')
    finally:
        do_umount(at)

def set_last_pid(last):
    """Process ids of the sandbox continue after `last`, as in a new sandbox: ns_last_pid applies to
    the writer's pid namespace, which this process (forked into it) is in."""
    with open('/proc/sys/kernel/ns_last_pid', 'w') as fh:
        fh.write(str(last))

def make_dev(old, new, extra):
    """/dev as bwrap's --dev makes it, in a new tmpfs at `new`: its device nodes, its devpts and the
    `extra` mounts below the old /dev moved from `old`, its links and folders made again."""
    do_mount('tmpfs', new, 'tmpfs', MS_NOSUID | MS_NODEV, 'mode=755')
    for name in ('null', 'zero', 'full', 'random', 'urandom', 'tty'):
        os.close(os.open(os.path.join(new, name), os.O_CREAT | os.O_WRONLY, 0o444))
        attach_clone(os.path.join(old, name), os.path.join(new, name), False)
    for name, target in (('stdin', '/proc/self/fd/0'), ('stdout', '/proc/self/fd/1'), ('stderr', '/proc/self/fd/2'),
                         ('fd', '/proc/self/fd'), ('core', '/proc/kcore')):
        os.symlink(target, os.path.join(new, name))
    os.mkdir(os.path.join(new, 'shm'), 0o755)
    os.mkdir(os.path.join(new, 'pts'), 0o755)
    attach_clone(os.path.join(old, 'pts'), os.path.join(new, 'pts'), False)
    os.symlink('pts/ptmx', os.path.join(new, 'ptmx'))
    for name in extra:
        os.close(os.open(os.path.join(new, name), os.O_CREAT | os.O_WRONLY, 0o444))
        attach_clone(os.path.join(old, name), os.path.join(new, name), False)

def pivot(tree, mounts, dev_extra, fds, last_pid):
    """In a child started in the sandbox's pid namespace: enters its other namespaces, checks IPC,
    puts the new root (`tree`, a detached clone) in place with clones of the sandbox's mounts
    (`mounts`, in the order they were made) and a new /dev, and drops the old root with everything
    on it. A child that shares the helper's memory (root: see in_shared_child) keeps root's
    capabilities, which cover the sandbox's namespaces, and makes its files with the fs ids of the
    sandbox's root; a forked one enters the sandbox's user namespace as its root."""
    setns(fds['ipc'], CLONE_NEWIPC, 'ipc')
    if not SHARED_CHILD:
        setns(fds['user'], CLONE_NEWUSER, 'user')
        os.setresgid(0, 0, 0)
        os.setresuid(0, 0, 0)
    set_last_pid(last_pid)
    setns(fds['mnt'], CLONE_NEWNS, 'mnt')
    if SHARED_CHILD:
        set_fs_ids(idmap_base)
    attach = '/dev/.intercode-renew-' + os.urandom(8).hex()
    os.mkdir(attach, 0o700)
    check_ipc(attach)
    if libc.syscall(SYS_MOVE_MOUNT, tree, b'', AT_FDCWD, attach.encode(), MOVE_MOUNT_F_EMPTY_PATH) != 0:
        fail('move_mount the new root')
    for path in mounts:
        if not os.path.isdir(attach + path) or os.path.islink(attach + path):
            raise Refused('the image has no folder %s to mount on' % path)
        if path == '/dev':
            make_dev('/dev', attach + '/dev', dev_extra)
        else:
            attach_clone(path, attach + path, True)
    os.chdir(attach)
    if libc.syscall(SYS_PIVOT_ROOT, b'.', b'.') != 0:
        fail('pivot_root')
    if libc.umount2(b'.', MNT_DETACH) != 0:
        fail('umount the old root')
    os.chdir('/')

def run_child(w, work):
    """The end of a forked child: `work`, then exit 0, or the reason on `w` and exit 1."""
    try:
        work()
        os._exit(0)
    except Refused as ex:
        os.write(w, ('R' + str(ex)).encode())
    except BaseException as ex:
        os.write(w, ('E' + str(ex)).encode())
    os._exit(1)

def fork_into(fds, r, w, work):
    """Runs `work` in a process forked into the sandbox's pid namespace (`fds['pid']`); returns the
    pid to wait for. A first child enters that namespace and forks the one that works, then waits
    for it (this process could not come back to its own pid namespace from a user namespace of its
    own: it belongs to the host's)."""
    pid = os.fork()
    if pid == 0:
        os.close(r)
        def enter_and_fork():
            setns(fds['pid'], CLONE_NEWPID, 'pid')
            child = os.fork()
            if child == 0:
                libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                run_child(w, work)
            os.waitpid(child, 0)
        run_child(w, enter_and_fork)
    return pid

# As root, the work in the sandbox's pid namespace runs in a child that shares the helper's memory
# (clone with CLONE_VM | CLONE_VFORK, the helper waiting in the call until the child has ended): a
# fork copied the helper's page tables and tore its copy down at the child's end, some 3 ms of CPU
# per renewal, most of a renewal's cost. The child runs Python on a stack of its own under the
# helper's thread state (the helper is suspended meanwhile, and the interpreter's lock is taken and
# given back around the call as for any callback from C), returns from it (never exits from inside
# it, which would leave the lock held), and keeps its own credentials, descriptors and file system
# root. Its work is a few system calls on the sandbox's mounts, IPC and pid counter, with nothing of
# the sandbox running (bounded: no time-out can interrupt it without leaving the lock held). Only
# for an interpreter with a global lock; otherwise, and when not root, a fork (fork_into).
CLONE_VM, CLONE_VFORK = 0x100, 0x4000
SHARED_CHILD = userns_fd is not None and getattr(sys, '_is_gil_enabled', lambda: True)()
SHARED_STACK = ctypes.create_string_buffer(1 << 20) if SHARED_CHILD else None
# The helper's own pid namespace, to come back to after each child's start (opened once).
OWN_PID_NS = os.open('/proc/self/ns/pid', os.O_RDONLY | os.O_CLOEXEC) if SHARED_CHILD else None
CloneFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
libc.clone.argtypes = [CloneFn, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]

def in_shared_child(fds, work):
    """Runs `work` in a child sharing this process's memory, in the pid namespace `fds['pid']` (this
    process enters it for the clone and comes back); raises what `work` raised."""
    outcome = []
    def body(_):
        try:
            work()
            outcome.append(None)
        except BaseException as ex:
            outcome.append(ex if isinstance(ex, (Refused, OSError)) else OSError(1, str(ex)))
        return 0
    fn = CloneFn(body)
    top = (ctypes.addressof(SHARED_STACK) + len(SHARED_STACK) - 64) & ~15
    setns(fds['pid'], CLONE_NEWPID, 'pid')
    try:
        pid = libc.clone(fn, ctypes.c_void_p(top), CLONE_VM | CLONE_VFORK | signal.SIGCHLD, None)
        err = ctypes.get_errno()
    finally:
        setns(OWN_PID_NS, CLONE_NEWPID, 'own pid')
    if pid < 0:
        raise OSError(err, 'clone: ' + os.strerror(err))
    os.waitpid(pid, 0)
    if not outcome:
        raise OSError(1, 'the child ended without a result')
    if outcome[0] is not None:
        raise outcome[0]

def in_pid_namespace(fds, work, what):
    """Runs `work` in a process in the pid namespace `fds['pid']` (in_shared_child, else fork_into) and
    waits for it (a forked one at most RENEW_TIMEOUT_S); raises Refused or OSError with the reason it
    gave (`what`: for the message of a time-out)."""
    if SHARED_CHILD:
        return in_shared_child(fds, work)
    r, w = os.pipe()
    try:
        pid = fork_into(fds, r, w, work)
    except BaseException:
        os.close(r)
        raise
    finally:
        os.close(w)
    message = b''
    deadline = time.monotonic() + RENEW_TIMEOUT_S
    while True:
        # Nothing of the sandbox runs to hold the child, but the helper serves every sandbox:
        # never wait for it without bound.
        if not select.select([r], [], [], max(0, deadline - time.monotonic()))[0]:
            os.kill(pid, signal.SIGKILL)
            message = b'E%s did not finish within %d s' % (what.encode(), RENEW_TIMEOUT_S)
            break
        chunk = os.read(r, 4096)
        if not chunk:
            break
        message += chunk
    os.close(r)
    os.waitpid(pid, 0)
    if message:
        text = message[1:].decode('utf-8', 'replace')
        raise Refused(text) if message[:1] == b'R' else OSError(1, text)

def renew_box(req):
    """Mounts a fresh overlay for the sandbox at req['dir'] and makes it the root of the running
    sandbox whose bwrap init is req['initPid'] (see the header). Refuses, changing nothing in the
    sandbox, when it is not quiet; the caller then starts a new bwrap (after `remount`). With
    req['keep'] (a trusted reset), keeps the sandbox as it is when nothing changed (keep-in-place.py):
    returns {'kept': True}, else {'kept': False, 'keepRefused': why} once renewed."""
    if SYS_PIVOT_ROOT is None:
        raise Refused('no pivot_root number for this machine')
    init = req['initPid']
    ctl = check_quiet(init)
    mounts = top_mounts(init)
    if sorted(mounts) != sorted(req['mounts']):
        raise Refused('the sandbox\'s mounts are not the ones it started with')
    # The controller's pid inside, plus the pids a new controller takes at its start that this one,
    # started again, does not (its baseline's subshell: it keeps its baseline, RESTART_SKIPPED_PIDS).
    last_pid = int(read_text('/proc/%d/status' % ctl).split('NSpid:')[1].split('\n')[0].split()[-1])
    last_pid += int(req['skippedPids'])
    fds = {}
    tree = -1
    kept = {}
    try:
        for kind in ('mnt', 'pid', 'ipc'):
            fds[kind] = os.open('/proc/%d/ns/%s' % (init, kind), os.O_RDONLY | os.O_CLOEXEC)
        # The user namespace that owns the sandbox's pid and mount namespaces: bwrap's outer one
        # (with --disable-userns, its processes run in a nested one, which owns neither).
        fds['user'] = fcntl.ioctl(fds['pid'], NS_GET_USERNS)
        if req.get('keep'):
            try:
                keep_box(req, init, fds, last_pid)
                return {'kept': True}
            except Refused as ex:
                kept = {'kept': False, 'keepRefused': str(ex)}
        d = req['dir']
        umount_box(d)
        mount_box(d, req['lowers'], req['sizeBytes'])
        tree = libc.syscall(SYS_OPEN_TREE, AT_FDCWD, os.path.join(d, 'root').encode(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)
        if tree < 0:
            fail('open_tree the new root')
        attr = MountAttr(MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
        if libc.syscall(SYS_MOUNT_SETATTR, tree, b'', AT_EMPTY_PATH, ctypes.byref(attr), ctypes.sizeof(attr)) != 0:
            fail('mount_setattr the new root')
        in_pid_namespace(fds, lambda: pivot(tree, mounts, req['devMounts'], fds, last_pid), 'the renewal')
        return kept
    finally:
        for fd in list(fds.values()) + ([tree] if tree >= 0 else []):
            os.close(fd)
