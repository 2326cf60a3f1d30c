# Lists what an overlay layer directory holds, as JSON on stdout: whiteouts (character devices 0/0),
# opaque folders (trusted.overlay.opaque), and every other entry. Run on the host by docker-images.ts
# as `python3 -c <source> <layer>`; it only reads. The walk is iterative (no depth limit), parents
# before their children, and follows no symbolic link: it descends only into real directories.

import json, os, stat, sys
root = sys.argv[1]
out = {'whiteouts': [], 'opaque': [], 'entries': []}
stack = ['.']
while stack:
    rel = stack.pop()
    d = os.path.join(root, rel)
    below = []
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        r = os.path.normpath(os.path.join(rel, name))
        st = os.lstat(p)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
            out['whiteouts'].append('/' + r)
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                if os.getxattr(p, 'trusted.overlay.opaque', follow_symlinks=False) == b'y':
                    out['opaque'].append('/' + r)
            except OSError:
                pass
            below.append(r)
        out['entries'].append('./' + r)
    stack.extend(reversed(below))
json.dump(out, sys.stdout)
