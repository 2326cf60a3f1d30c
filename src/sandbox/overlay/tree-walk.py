# The scorer's walks over a sandbox's file system, run on the host by the mount helper (whose source
# follows this file's: mount-helper.ts sends both as one program), in its walker processes.
#
# The trees walked belong to the agent, so every walk:
# - opens directories relative to their parent's descriptor (openat) with O_NOFOLLOW|O_NONBLOCK|
#   O_DIRECTORY and checks the type with fstat after the open: a symbolic link is never followed, a
#   path never resolved again from the top, so nothing outside the sandbox's layer is ever reached;
# - opens a file for reading only when lstat said "regular file", with O_NOFOLLOW|O_NONBLOCK, and
#   reads it only when fstat of the open descriptor agrees: a FIFO or a device is never read;
# - is iterative (no recursion, no depth limit), keeps a descriptor open only for the directories
#   whose children it has not opened yet, and counts entries and time against the request's bounds.
# A walk that meets an entry whose type changed under it stops with the `changed` limit.

import hashlib, os, stat, time

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
OPAQUE = 'trusted.overlay.opaque'


class WalkLimit(Exception):
    """A walk stopped at one of its bounds; `kind` names it (entries, time, memory, descriptors, changed)."""

    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind


class Budget:
    """The bounds of one request: entries visited and a deadline (time.monotonic())."""

    def __init__(self, max_entries, deadline):
        self.max_entries = max_entries
        self.left = max_entries
        self.deadline = deadline

    def entry(self):
        self.left -= 1
        if self.left < 0:
            raise WalkLimit('entries', 'more than %d file-system entries to walk' % self.max_entries)
        if self.left & 255 == 0:
            self.check_time()

    def check_time(self):
        if time.monotonic() > self.deadline:
            raise WalkLimit('time', 'the walk did not finish within its time bound')


def changed(name, why):
    return WalkLimit('changed', 'the file system changed during the walk (%r: %s)' % (name, why))


def open_checked(fd, name, flags, want):
    """Opens `name` below the directory `fd` without following it; fstat must show type `want`."""
    try:
        opened = os.open(name, flags, dir_fd=fd)
    except OSError as ex:
        if ex.errno == 24:
            raise WalkLimit('descriptors', 'too many nested directories to keep open')
        raise changed(name, ex.strerror)
    st = os.fstat(opened)
    if stat.S_IFMT(st.st_mode) != want:
        os.close(opened)
        raise changed(name, 'not the type it had')
    return opened, st


def open_noatime(path, flags):
    """Opens a file or directory of a read-only layer without touching its access time (a layer is
    shared by every sandbox on it: reading it for one scorer must not change what `find -amin` shows in
    the next), where the kernel allows it (the file's owner, or CAP_FOWNER)."""
    try:
        return os.open(path, flags | os.O_NOATIME)
    except PermissionError:
        return os.open(path, flags)


def list_lower(path):
    """The names in a directory of a read-only layer, leaving its access time alone."""
    fd = open_noatime(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


def readlink_at(fd, name):
    try:
        return os.readlink(name, dir_fd=fd)
    except OSError as ex:
        raise changed(name, ex.strerror)


def list_dir(fd, budget):
    """(name, lstat) of every entry of the directory `fd`, sorted by name, each counted."""
    out = []
    with os.scandir(fd) as it:
        for e in it:
            budget.entry()
            try:
                out.append((e.name, e.stat(follow_symlinks=False)))
            except OSError as ex:
                raise changed(e.name, ex.strerror)
    out.sort(key=lambda item: item[0])
    return out


def is_whiteout(st):
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == 0


def fd_opaque(fd):
    try:
        return os.getxattr(fd, OPAQUE) == b'y'
    except OSError:
        return False


def path_opaque(path):
    try:
        return os.getxattr(path, OPAQUE, follow_symlinks=False) == b'y'
    except OSError:
        return False


def kind(st):
    if stat.S_ISDIR(st.st_mode): return 'dir'
    if stat.S_ISLNK(st.st_mode): return 'symlink'
    if stat.S_ISREG(st.st_mode): return 'file'
    return 'other'


# Lower layers are the image's read-only directories (never the agent's), looked up by path. A
# directory's state in each layer: None (a prefix is missing there), False (a prefix is a whiteout or
# not a directory: lower layers are hidden), or (path, opaque) when every prefix is a real directory
# (so the path holds no symbolic link) and `opaque` says whether one of them is opaque.

def lower_lookup(states, name):
    """The lower (path, lstat) a child of a directory in `states` shows through the overlay, or None."""
    for state in states:
        if state is None:
            continue
        if state is False:
            return None
        p = os.path.join(state[0], name)
        try:
            st = os.lstat(p)
        except OSError:
            if state[1]:
                return None
            continue
        return None if is_whiteout(st) else (p, st)
    return None


def lower_child(states, name):
    out = []
    for state in states:
        if not state:
            out.append(state)
            continue
        p = os.path.join(state[0], name)
        try:
            st = os.lstat(p)
        except OSError:
            out.append(None)
            continue
        if is_whiteout(st) or not stat.S_ISDIR(st.st_mode):
            out.append(False)
        else:
            out.append((p, state[1] or path_opaque(p)))
    return out


def lower_names(states, budget):
    names = set()
    for state in states:
        if not state:
            continue
        try:
            entries = list_lower(state[0])
        except OSError:
            continue
        for name in entries:
            budget.entry()
            names.add(name)
    return names


def same_bytes(fd_a, fd_b, budget):
    while True:
        budget.check_time()
        x, y = os.read(fd_a, 65536), os.read(fd_b, 65536)
        if x != y: return False
        if not x: return True


def same_content(fd, name, ast, low, budget):
    path, bst = low
    if stat.S_IFMT(ast.st_mode) != stat.S_IFMT(bst.st_mode) or stat.S_IMODE(ast.st_mode) != stat.S_IMODE(bst.st_mode):
        return False
    if stat.S_ISLNK(ast.st_mode):
        return readlink_at(fd, name) == os.readlink(path)
    if not stat.S_ISREG(ast.st_mode):
        return True
    if ast.st_size != bst.st_size:
        return False
    a, st = open_checked(fd, name, FILE_FLAGS, stat.S_IFREG)
    try:
        if st.st_size != ast.st_size:
            raise changed(name, 'its size changed')
        b = open_noatime(path, FILE_FLAGS)
        try:
            return same_bytes(a, b, budget)
        finally:
            os.close(b)
    finally:
        os.close(a)


class Dir:
    """An open directory whose children are still to be opened; closed once the last one is."""

    def __init__(self, fd, pending):
        self.fd = fd
        self.pending = pending
        if pending == 0:
            os.close(fd)

    def open_child(self, name):
        try:
            return open_checked(self.fd, name, DIR_FLAGS, stat.S_IFDIR)[0]
        finally:
            self.pending -= 1
            if self.pending == 0:
                os.close(self.fd)


def diff_tree(upper, lowers, budget):
    """Added, modified and deleted paths of an overlay upper layer against its lower layers."""
    out = []
    top = os.open(upper, DIR_FLAGS)
    # (rel, parent Dir or None with the open fd, name, lower states or None for an added tree)
    stack = [('', None, top, [(layer, False) for layer in lowers])]
    while stack:
        rel, parent, name_or_fd, states = stack.pop()
        fd = name_or_fd if parent is None else parent.open_child(name_or_fd)
        try:
            entries = list_dir(fd, budget)
            opaque = rel != '' and states is not None and fd_opaque(fd)
        except BaseException:
            os.close(fd)
            raise
        children = []
        seen = set()
        for name, st in entries:
            seen.add(name)
            child = rel + '/' + name if rel else name
            if states is None:
                if is_whiteout(st): continue
                out.append({'path': '/' + child, 'kind': 'added', 'type': kind(st)})
                if stat.S_ISDIR(st.st_mode): children.append((child, name, None))
                continue
            if is_whiteout(st):
                low = lower_lookup(states, name)
                if low is not None:
                    out.append({'path': '/' + child, 'kind': 'deleted', 'type': kind(low[1])})
                continue
            low = lower_lookup(states, name)
            if low is None:
                out.append({'path': '/' + child, 'kind': 'added', 'type': kind(st)})
                if stat.S_ISDIR(st.st_mode): children.append((child, name, None))
            elif stat.S_ISDIR(st.st_mode) and stat.S_ISDIR(low[1].st_mode):
                children.append((child, name, lower_child(states, name)))
            elif not same_content(fd, name, st, low, budget):
                out.append({'path': '/' + child, 'kind': 'modified', 'type': kind(st)})
        if opaque:
            for name in sorted(lower_names(states, budget) - seen):
                low = lower_lookup(states, name)
                if low is not None:
                    out.append({'path': '/' + rel + '/' + name, 'kind': 'deleted', 'type': kind(low[1])})
        holder = Dir(fd, len(children))
        for child, name, child_states in children:
            stack.append((child, holder, name, child_states))
    return out


_READ_BUFFER = None


def read_chunk(fd):
    """Up to 1 MiB from `fd` as a view of a buffer kept for the purpose (valid until the next
    call; empty at the end): os.read(fd, 1 << 20) allocates a 1 MiB block for every read however
    short (a mapping of its own) and gives it back after, three system calls and a TLB flush each."""
    global _READ_BUFFER
    if _READ_BUFFER is None:
        _READ_BUFFER = bytearray(1 << 20)
    return memoryview(_READ_BUFFER)[:os.readv(fd, [_READ_BUFFER])]


def md5_file(fd, budget):
    h = hashlib.md5()
    while True:
        budget.check_time()
        block = read_chunk(fd)
        if not block: return h.hexdigest()
        h.update(block)


def digest_leaf(fd, name, st, budget):
    """The digest of a non-directory entry of the directory `fd`."""
    if stat.S_ISLNK(st.st_mode):
        return 'link:' + readlink_at(fd, name)
    if stat.S_ISREG(st.st_mode):
        f = open_checked(fd, name, FILE_FLAGS, stat.S_IFREG)[0]
        try:
            return 'file:' + md5_file(f, budget)
        finally:
            os.close(f)
    return 'other:%o' % stat.S_IFMT(st.st_mode)


def digest_dir(fd, budget):
    """'dir:' + md5 over the sorted entries (name, NUL, digest, newline), iteratively; closes `fd`."""
    # Frames: [fd or None once closed, entries, next index, md5]. A frame's descriptor is closed
    # as soon as its last entry is opened, so a chain of single directories keeps O(1) open.
    stack = [[fd, list_dir(fd, budget), 0, hashlib.md5()]]
    done = None
    while True:
        frame = stack[-1]
        entries, h = frame[1], frame[3]
        if done is not None:
            h.update((entries[frame[2]][0] + '\0' + done + '\n').encode('utf-8', 'surrogateescape'))
            frame[2] += 1
            done = None
        if frame[2] == len(entries):
            if frame[0] is not None: os.close(frame[0])
            stack.pop()
            done = 'dir:' + h.hexdigest()
            if not stack: return done
            continue
        name, st = entries[frame[2]]
        if stat.S_ISDIR(st.st_mode):
            child = open_checked(frame[0], name, DIR_FLAGS, stat.S_IFDIR)[0]
            if frame[2] == len(entries) - 1:
                os.close(frame[0])
                frame[0] = None
            stack.append([child, None, 0, hashlib.md5()])
            try:
                stack[-1][1] = list_dir(child, budget)
            except BaseException:
                os.close(child)
                raise
        else:
            h.update((name + '\0' + digest_leaf(frame[0], name, st, budget) + '\n').encode('utf-8', 'surrogateescape'))
            frame[2] += 1


def digest_path(root, p, budget):
    """Digest of `p` below the directory `root`: no component is followed; None when it is missing."""
    rel = os.path.normpath('/' + p).lstrip('/')
    fd = os.open(root, DIR_FLAGS)
    try:
        parts = rel.split('/') if rel else []
        for i, part in enumerate(parts):
            budget.entry()
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except OSError:
                return None
            if i == len(parts) - 1:
                if stat.S_ISDIR(st.st_mode):
                    child = open_checked(fd, part, DIR_FLAGS, stat.S_IFDIR)[0]
                    return digest_dir(child, budget)
                return digest_leaf(fd, part, st, budget)
            if not stat.S_ISDIR(st.st_mode):
                return None
            child = open_checked(fd, part, DIR_FLAGS, stat.S_IFDIR)[0]
            os.close(fd)
            fd = child
        dup = os.dup(fd)
        return digest_dir(dup, budget)
    finally:
        os.close(fd)


def digest_paths(root, paths, budget):
    return {p: digest_path(root, p, budget) for p in paths}
