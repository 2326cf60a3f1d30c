# A trusted reset of a bwrap sandbox that keeps its root (loaded after renew-root.py, in one program
# with it; see docs/architecture/sandbox-internals.md#keeping-an-unchanged-sandbox). Only trusted code
# ran in the sandbox since its last reset (an evaluator's gold). When that changed nothing a renewal
# would replace, the renewal's new overlay, its mounts and its pivot_root make the same sandbox again:
# the sandbox is kept as it is, its pid numbering set back as a renewal sets it, and its controller
# starts again. Checked, with every process but the controller ended (check_quiet, as for a renewal):
# the writable layer holds nothing and its folder is as it was mounted (an owner, a mode, times or an
# extended attribute of the root change its change time), /dev holds what bwrap's --dev made (the
# shells' state files and libfaketime's clock files in /dev/shm are removed: each new shell and
# program makes its own) with its links, modes and no extended attribute, and the IPC namespace holds
# no System V object and no POSIX queue. Anything else: the caller renews as before.

import re

# What bwrap's --dev (and make_dev) put in /dev: its device nodes, links and folders.
DEV_NODES = ('null', 'zero', 'full', 'random', 'urandom', 'tty')
DEV_LINKS = {'stdin': '/proc/self/fd/0', 'stdout': '/proc/self/fd/1', 'stderr': '/proc/self/fd/2',
             'fd': '/proc/self/fd', 'core': '/proc/kcore', 'ptmx': 'pts/ptmx'}
DEV_DIRS = ('shm', 'pts')
# The shells' session-state files (`STATE_FILE` of shell-protocol.ts) and libfaketime's clock files.
SHELL_STATE = re.compile(r'^\.intercode-state-\d+(\.names|\.base)?$')
CLOCK_SHARE = re.compile(r'^(faketime_shm_|sem\.faketime_sem_)\d+$')

# Each mounted sandbox's writable layer as it was mounted: {dir: (mode, uid, gid, mtime, ctime)}.
upper_marks = {}

def upper_mark(d):
    st = os.lstat(os.path.join(d, 't', 'upper'))
    return (st.st_mode, st.st_uid, st.st_gid, st.st_mtime_ns, st.st_ctime_ns)

def mark_upper(d):
    """Called once the sandbox at `d` has a new writable layer (mount_box)."""
    upper_marks[d] = upper_mark(d)

def check_upper(d):
    if os.listdir(os.path.join(d, 't', 'upper')):
        raise Refused('its writable layer holds files')
    if upper_marks.get(d) != upper_mark(d):
        raise Refused('its root folder changed')

def check_dev(init, dev_extra):
    """/dev of the sandbox whose bwrap init is host pid `init` (`dev_extra`: the mounts below it
    besides bwrap's, as for make_dev), read from here; removes the shells' state files and the clock
    files of /dev/shm, once nothing else is found. /dev/pts is a renewal's clone of the old one: as is."""
    dev = '/proc/%d/root/dev' % init
    expected = set(DEV_NODES) | set(DEV_LINKS) | set(DEV_DIRS) | set(dev_extra)
    names = os.listdir(dev)
    state = [name for name in names if SHELL_STATE.match(name)]
    extra = sorted(set(names) - expected - set(state))
    if extra:
        raise Refused('/dev/%s is new' % extra[0])
    missing = sorted(expected - set(names))
    if missing:
        raise Refused('/dev/%s is gone' % missing[0])
    root = os.lstat(dev)
    shm_st = os.lstat(os.path.join(dev, 'shm'))
    if stat.S_IMODE(root.st_mode) != 0o755:
        raise Refused('/dev changed')
    if not stat.S_ISDIR(shm_st.st_mode) or stat.S_IMODE(shm_st.st_mode) != 0o755 or (shm_st.st_uid, shm_st.st_gid) != (root.st_uid, root.st_gid):
        raise Refused('/dev/shm changed')
    for path in (dev, os.path.join(dev, 'shm')):
        if os.listxattr(path, follow_symlinks=False):
            raise Refused('%s has an extended attribute' % path[len(dev) - 4:])
    for name, target in DEV_LINKS.items():
        if not os.path.islink(os.path.join(dev, name)) or os.readlink(os.path.join(dev, name)) != target:
            raise Refused('/dev/%s changed' % name)
    for name in DEV_NODES:
        if not stat.S_ISCHR(os.lstat(os.path.join(dev, name)).st_mode):
            raise Refused('/dev/%s changed' % name)
    shm = os.listdir(os.path.join(dev, 'shm'))
    other = [name for name in shm if not CLOCK_SHARE.match(name)]
    if other:
        raise Refused('/dev/shm holds %s' % other[0])
    for path in [os.path.join(dev, name) for name in state] + [os.path.join(dev, 'shm', name) for name in shm]:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass

def keep_box(req, init, fds, last_pid):
    """Keeps the sandbox at req['dir'] as it is (see the header); raises Refused, changing nothing but
    the files check_dev removes (a renewal's new /dev lacks them too), when it cannot."""
    if not SHARED_CHILD:
        raise Refused('the mount helper does not run as root')
    d = req['dir']
    check_upper(d)
    check_dev(init, req['devMounts'])
    queues = os.path.join(d, 'q')
    os.makedirs(queues, exist_ok=True)
    def renumber():
        setns(fds['ipc'], CLONE_NEWIPC, 'ipc')
        check_ipc(queues)
        set_last_pid(last_pid)
    in_pid_namespace(fds, renumber, 'the keep')
