#!/usr/bin/env python3
"""Does a patch of the series change a line that an earlier patch added?

Applies patches/ to the pinned base in a scratch index (commits that no
branch keeps), and for every line a patch removes, asks git blame which
commit added it. A line of the base may be changed; a line of an earlier
patch may be changed only to extend it, and such changes are listed, with
the patch that makes them, in harness/series-lines.allow
("subject<TAB>removed line"). Prints TAP: one line, and the changes as
comments.

  harness/series-lines.py SRC PATCHDIR
  harness/series-lines.py --decoder SRC PATCHDIR

--decoder: instead, build the SFrame decoder (kernel/unwind/sframe.c) in
user space, as harness/hosttest does, after every patch that changes it
or the headers it reads, so that a patch of the decoder that no kernel
configuration compiles yet is compiled all the same. Prints TAP, one
line per such patch.
"""
import atexit, os, shutil, subprocess, sys, tempfile

decoder = sys.argv[1] == '--decoder'
if decoder:
    del sys.argv[1]
src, pdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(*a, env=None, inp=None):
    return subprocess.run(['git', '-C', src] + list(a), env=env, input=inp,
                          capture_output=True, text=True, check=True).stdout


patches = sorted(p for p in os.listdir(pdir)
                 if p.endswith('.patch') and not p.startswith('0000-'))
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, 'index'),
           GIT_AUTHOR_NAME='x', GIT_AUTHOR_EMAIL='x', GIT_COMMITTER_NAME='x',
           GIT_COMMITTER_EMAIL='x')
git('read-tree', 'base', env=env)
parent = git('rev-parse', 'base').strip()
commits = []
for p in patches:
    git('apply', '--cached', os.path.join(pdir, p), env=env)
    tree = git('write-tree', env=env).strip()
    parent = git('commit-tree', tree, '-p', parent, '-m', p, env=env).strip()
    commits.append((p, parent))
ours = {c: p for p, c in commits}

DECODER_FILES = ['kernel/unwind/sframe.c', 'kernel/unwind/sframe.h',
                 'kernel/unwind/sframe_table.h',
                 'include/linux/sframe.h', 'include/linux/unwind_user_types.h']
if decoder:
    ht = os.path.join(top, 'harness', 'hosttest')
    n = bad = 0
    for p, c in commits:
        changed = git('diff', '--name-only', c + '~1', c, '--', *DECODER_FILES).split()
        if not changed or 'kernel/unwind/sframe.c' not in git('ls-tree', '-r', '--name-only', c, 'kernel/unwind/').split():
            continue
        d = tempfile.mkdtemp()
        # The layout harness/hosttest/shim expects: the shims include the
        # series' headers four levels up.
        os.makedirs(os.path.join(d, 'harness', 'hosttest'))
        subprocess.run(['cp', '-r', os.path.join(ht, 'shim'),
                        os.path.join(d, 'harness', 'hosttest', 'shim')], check=True)
        for f in DECODER_FILES:
            if subprocess.run(['git', '-C', src, 'cat-file', '-e', '%s:%s' % (c, f)],
                              capture_output=True).returncode:
                continue
            os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
            open(os.path.join(d, f), 'w').write(git('show', '%s:%s' % (c, f)))
        shim = os.path.join(d, 'harness', 'hosttest', 'shim')
        # The kernel's warnings, not hosttest's -Wextra: a parameter that a
        # later patch's code uses may be unused here.
        r = subprocess.run(['gcc', '-std=gnu11', '-Wall', '-Werror',
                            '-fno-strict-aliasing', '-fno-strict-overflow',
                            '-fno-common', '-funsigned-char', '-include',
                            os.path.join(shim, 'kconfig.h'), '-I' + shim,
                            '-DUNWIND_USER_TYPES_H="%s"' % os.path.join(
                                d, 'include/linux/unwind_user_types.h'),
                            '-O2', '-c', os.path.join(d, 'kernel/unwind/sframe.c'),
                            '-o', os.path.join(d, 'sframe.o')],
                           capture_output=True, text=True)
        n += 1
        if r.returncode:
            bad += 1
            print('not ok %d - the decoder builds in user space after %s' % (n, p))
            print(''.join('# ' + l + '\n' for l in (r.stdout + r.stderr).splitlines()), end='')
        else:
            print('ok %d - the decoder builds in user space after %s' % (n, p))
        shutil.rmtree(d, True)
    sys.exit(1 if bad else 0)

allow = set()
af = os.path.join(top, 'harness', 'series-lines.allow')
if os.path.exists(af):
    for l in open(af):
        l = l.rstrip('\n')
        if l and not l.startswith('#'):
            allow.add(tuple(l.split('\t', 1)))

found, bad = [], 0
for p, c in commits:
    subj = open(os.path.join(pdir, p)).readline()
    subj = next(l for l in open(os.path.join(pdir, p)) if l.startswith('Subject:'))
    subj = subj.split('] ', 1)[1].strip()
    for f in git('diff', '--name-only', '--diff-filter=MD', c + '~1', c).split():
        diff = git('diff', '-U0', c + '~1', c, '--', f).split('\n')
        old = []
        for l in diff:
            if l.startswith('@@'):
                a = l.split()[1][1:].split(',')
                n = int(a[0]); cnt = int(a[1]) if len(a) > 1 else 1
                old += range(n, n + cnt)
        if not old:
            continue
        bl = git('blame', '-s', '-l', c + '~1', '--', f).split('\n')
        for n in old:
            line = bl[n - 1]
            h = line[:40].lstrip('^')
            text = line.split(') ', 1)[1] if ') ' in line else line[41:].split(None, 1)[-1]
            for full in ours:
                if full.startswith(h):
                    ok = (subj, text) in allow
                    found.append((ok, subj, ours[full], text))
                    bad += not ok
                    break

print('%s 1 - no patch changes a line an earlier patch added, but to extend it '
      '(%d changed, %d listed in harness/series-lines.allow)' %
      ('not ok' if bad else 'ok', len(found), len(found) - bad))
for ok, subj, by, text in found:
    print('# %s %s: changes %r (from %s)' % ('allowed' if ok else 'NOT ALLOWED', subj, text, by))
sys.exit(1 if bad else 0)
