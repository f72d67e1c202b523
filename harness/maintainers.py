#!/usr/bin/env python3
"""Rewrite the commits base..HEAD of the kernel tree so that each one adds
to MAINTAINERS the F: lines (from MAINTAINERS.fragment) of the files it
adds: the entry grows with the series and equals MAINTAINERS.fragment at
the end, and no patch adds a file without updating MAINTAINERS.

  harness/maintainers.py rewrite   rewrite the tree's series branch
  harness/maintainers.py check     the series' final entry == the fragment
  harness/maintainers.py covered PATCH...
                                   the files each patch adds that the entry
                                   as the earlier patches left it does not
                                   cover (exit status 1 if there are any)

A patch that adds files to a directory the entry already lists (the
selftest patches after the first) changes nothing in MAINTAINERS, and
checkpatch asks "added, moved or deleted file(s), does MAINTAINERS need
updating?" (FILE_PATH_CHANGES); `covered` answers that question.
"""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.environ.get('SRC', os.path.join(TOP, 'out/src/linux'))
FRAGMENT = os.path.join(TOP, 'MAINTAINERS.fragment')
ANCHOR = 'UTIL-LINUX PACKAGE\n'


def git(*args, **kw):
    return subprocess.run(['git', '-C', SRC] + list(args), check=True,
                          capture_output=True, text=True, **kw).stdout


def fragment():
    lines = open(FRAGMENT).read().rstrip('\n').split('\n')
    head = [l for l in lines if not l.startswith('F:')]
    files = [l.split('\t', 1)[1] for l in lines if l.startswith('F:')]
    return head, files


def covers(pattern, path):
    return path == pattern or (pattern.endswith('/') and path.startswith(pattern))


def entry_for(tree_files):
    head, pats = fragment()
    used = [p for p in pats if any(covers(p, f) for f in tree_files)]
    if not used:
        return None
    return '\n'.join(head + ['F:\t' + p for p in used]) + '\n'


def with_entry(base_text, entry):
    if entry is None:
        return base_text
    assert base_text.count(ANCHOR) == 1
    return base_text.replace(ANCHOR, entry + '\n' + ANCHOR)


def rewrite():
    commits = git('rev-list', '--reverse', 'base..HEAD').split()
    base_text = git('show', 'base:MAINTAINERS')
    branch = git('rev-parse', '--abbrev-ref', 'HEAD').strip()
    git('checkout', '-q', '--detach', 'base')
    for c in commits:
        git('cherry-pick', '-n', '--strategy-option=theirs', c)
        added = git('diff', '--cached', '--name-only', '--diff-filter=A',
                    'base').split()
        text = with_entry(base_text, entry_for(added))
        with open(os.path.join(SRC, 'MAINTAINERS'), 'w') as f:
            f.write(text)
        git('add', 'MAINTAINERS')
        git('commit', '-q', '--allow-empty', '-C', c)
    git('checkout', '-q', '-B', branch)
    print('rewrote %d commits' % len(commits))


def check():
    """The final entry in the series must be exactly the fragment."""
    final = git('show', 'HEAD:MAINTAINERS')
    entry = open(FRAGMENT).read()
    if entry not in final:
        print('not ok - MAINTAINERS entry of the series differs from MAINTAINERS.fragment')
        return 1
    print('ok - MAINTAINERS entry of the series equals MAINTAINERS.fragment')
    return 0


def added_files(text):
    """Files a patch creates, and the F: patterns it adds to MAINTAINERS."""
    files, pats, cur = [], [], None
    for line in text.split('\n'):
        if line.startswith('diff --git '):
            cur = line.split(' b/', 1)[1]
        elif line.startswith('new file mode') and cur:
            files.append(cur)
        elif cur == 'MAINTAINERS' and line.startswith('+F:\t'):
            pats.append(line[4:])
    return files, pats


def covered(patches):
    """Every added file covered by an F: line of an earlier patch."""
    known, bad = [], 0
    for p in patches:
        files, pats = added_files(open(p).read())
        left = [f for f in files if not any(covers(k, f) for k in known)]
        known += pats
        for f in left:
            if not any(covers(k, f) for k in pats):
                print('%s: %s is not in the MAINTAINERS entry' %
                      (os.path.basename(p), f))
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'rewrite':
        rewrite()
    elif cmd == 'check':
        sys.exit(check())
    elif cmd == 'covered':
        sys.exit(covered(sys.argv[2:]))
    else:
        sys.exit(__doc__)
