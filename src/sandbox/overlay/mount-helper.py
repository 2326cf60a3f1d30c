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

import ctypes, fcntl, json, os, resource, select, selectors, signal, stat, subprocess, sys, time

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

def copy_xattrs(src, dst):
    for name in os.listxattr(src, follow_symlinks=False):
        try:
            os.setxattr(dst, name, os.getxattr(src, name, follow_symlinks=False), follow_symlinks=False)
        except OSError:
            # An overlay marker (opaque, redirect, …) must come along; others are best effort.
            if '.overlay.' in name:
                raise

def copy_meta(src, dst, st):
    copy_xattrs(src, dst)
    try:
        os.chown(dst, st.st_uid, st.st_gid, follow_symlinks=False)
    except PermissionError:
        pass  # in a user namespace, ids outside its mapping stay the helper's
    if not stat.S_ISLNK(st.st_mode):
        os.chmod(dst, stat.S_IMODE(st.st_mode))
    os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)

def copy_file(src, dst, size):
    fin = os.open(src, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fout = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            done = 0
            while done < size:
                n = os.sendfile(fout, fin, done, size - done)
                if n == 0:
                    break
                done += n
        finally:
            os.close(fout)
    finally:
        os.close(fin)

def copy_upper(seed, upper):
    """Copies another sandbox's upper layer (stopped by the caller) into a new one, before its overlay
    is mounted, in this process (a cp per copy cost a process start): whiteouts (character devices
    0/0), opaque and other overlay markers (xattrs), owners as stored (the sandbox's own ids), modes,
    times and hard links; links are copied as links, never followed."""
    links = {}
    dirs = []
    stack = [(seed, upper)]
    while stack:
        src_dir, dst_dir = stack.pop()
        with os.scandir(src_dir) as entries:
            for entry in entries:
                src, dst = entry.path, os.path.join(dst_dir, entry.name)
                st = entry.stat(follow_symlinks=False)
                mode = st.st_mode
                if stat.S_ISDIR(mode):
                    os.mkdir(dst, 0o700)
                    stack.append((src, dst))
                    dirs.append((src, dst, st))
                    continue
                key = (st.st_dev, st.st_ino)
                if st.st_nlink > 1 and key in links:
                    os.link(links[key], dst, follow_symlinks=False)
                    continue
                if stat.S_ISREG(mode):
                    copy_file(src, dst, st.st_size)
                elif stat.S_ISLNK(mode):
                    os.symlink(os.readlink(src), dst)
                else:
                    os.mknod(dst, mode, st.st_rdev)
                copy_meta(src, dst, st)
                if st.st_nlink > 1:
                    links[key] = dst
    # Directories last, deepest first: their times would move with each entry made in them.
    for src, dst, st in reversed(dirs):
        copy_meta(src, dst, st)
    copy_meta(seed, upper, os.lstat(seed))

def mount_box(d, lowers, size, seed=None):
    t, root = os.path.join(d, 't'), os.path.join(d, 'root')
    os.makedirs(t, exist_ok=True)
    os.makedirs(root, exist_ok=True)
    do_mount('tmpfs', t, 'tmpfs', MS_NOSUID | MS_NODEV, 'size=%d,mode=755' % size)
    os.mkdir(os.path.join(t, 'upper'), 0o755)
    os.mkdir(os.path.join(t, 'work'), 0o755)
    try:
        if seed:
            copy_upper(seed, os.path.join(t, 'upper'))
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
    mark_upper(d)

def keep_upper(upper, d, size):
    """Keeps a copy of a sandbox's upper layer (stopped by the caller) in a tmpfs of its own at d/upper,
    for sandboxes opened from it later (`Sandbox.branch`); the copy is made as for a `seed`."""
    os.makedirs(d, exist_ok=True)
    do_mount('tmpfs', d, 'tmpfs', MS_NOSUID | MS_NODEV, 'size=%d,mode=700' % size)
    try:
        os.mkdir(os.path.join(d, 'upper'), 0o755)
        copy_upper(upper, os.path.join(d, 'upper'))
    except OSError:
        do_umount(d)
        raise

def umount_box(d):
    do_umount(os.path.join(d, 'root'))
    if userns_fd is not None:
        do_umount(os.path.join(d, 'u'))
    do_umount(os.path.join(d, 't'))
    mounted.pop(d, None)
    upper_marks.pop(d, None)

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
