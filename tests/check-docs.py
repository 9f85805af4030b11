#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The man pages and README.md say what this build does. One case a test:

  options   every option of each command's --help is in hwprof(1) (its
            section, its SYNOPSIS) and every option hwprof(1) documents
            is in the --help; the top-level options answer
  optvalue  every option that takes a value takes it as --opt=VALUE (and
            record's short ones as -XVALUE) with the same result as
            --opt VALUE; one that takes none says so of --opt=VALUE
  env       every variable the code reads with getenv()/secure_getenv()
            (lib/, tools/) is documented in a man page (in bold, or in an
            ENVIRONMENT section)
  shell     every hwprof command line in README.md's shell blocks and in
            the pages' examples names a command and options it has; the
            README's shell blocks parse (sh -n)
  examples  every C example of the pages and README.md compiles (-Werror)
            against an installed copy of this build, with the compile
            lines the pages give, and runs where it needs no PMU; the
            installed hwprof runs without LD_LIBRARY_PATH
  synopsis  every function's SYNOPSIS in section 3 is what the installed
            headers declare (each prototype redeclared after its
            #include) and every structure a page shows has the header's
            members, types, offsets and size
  messages  every message line the pages' examples show is what the
            code prints, numbers and names aside (its format strings)
  sample    the sample outputs in the pages are what this build prints:
            hwprof(1)'s EXAMPLES session is run again and compared line by
            line (numbers aside), hwprof-data(5)'s files are read by
            report, hwprof(7)'s version macros are <hwprof.h>'s

usage: check-docs.py CASE SRCDIR HWPROF BUILDDIR DEMO
Each failure is one line "FAIL: ..." naming the page, the option or the
variable; exit 0, 1 (a failure), 77 (SKIP, with the reason).
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

CMDS = ['record', 'report', 'annotate', 'diff', 'list']
OPT_RE = re.compile(r'(?<![\w\-./%:])(--?[A-Za-z][A-Za-z0-9\-]*)')
fails = []


def fail(msg):
    fails.append(msg)
    print('FAIL: ' + msg, flush=True)


def done(what):
    if fails:
        print('%s: %d failures' % (what, len(fails)))
        sys.exit(1)
    print('%s: all checks passed' % what)
    sys.exit(0)


def skip(why):
    print('SKIP: ' + why)
    sys.exit(77)


def run(argv, **kw):
    kw.setdefault('stdout', subprocess.PIPE)
    kw.setdefault('stderr', subprocess.PIPE)
    kw.setdefault('timeout', 120)
    return subprocess.run(argv, universal_newlines=True, **kw)


# ------------------------------------------------------------------ #
# Pages                                                                #

def unesc(s):
    """groff text to what man shows: escapes and font changes away."""
    s = re.sub(r'\\f[BIRP]|\\f\([A-Z][A-Z]|\\&|\\c$', '', s)
    for a, b in (('\\-', '-'), ('\\(dq', '"'), ('\\(aq', "'"), ('\\(mu', 'x'),
                 ('\\(em', '--'), ('\\(-\u003e', '->'), ('\\~', ' '), ('\\ ', ' '),
                 ('\\e', '\\')):
        s = s.replace(a, b)
    return s


def macro_args(s):
    """A groff macro's arguments: split at spaces, "..." one argument
    ("" in it a quote); a \\" comment ends them."""
    args, cur, q, i, have = [], '', False, 0, False
    while i < len(s):
        c = s[i]
        if c == '\\' and s[i + 1:i + 2] == '"' and not q:
            break
        if c == '\\' and i + 1 < len(s):
            cur += s[i:i + 2]
            i += 2
            have = True
            continue
        if c == '"':
            if q and s[i + 1:i + 2] == '"':
                cur += '"'
                i += 2
                continue
            q = not q
            have = True
        elif c in ' \t' and not q:
            if have:
                args.append(cur)
            cur, have = '', False
        else:
            cur += c
            have = True
        i += 1
    if have:
        args.append(cur)
    return args


def macro_text(line):
    """A line's text: a font macro's arguments joined as man joins them."""
    m = re.match(r'^\.(B|I|BR|RB|BI|IB|IR|RI|SM|SB|TP|TQ)(?:\s+(.*))?$', line)
    if not m:
        return '' if line.startswith(('.', "'")) else line
    args = macro_args(m.group(2) or '')
    return (' ' if m.group(1) in ('B', 'I', 'SM', 'SB') else '').join(args)


class Page:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, encoding='utf-8') as f:
            self.lines = f.read().split('\n')

    def sections(self):
        """(SH name, SS name or '', [lines])"""
        out, sh, ss, cur = [], '', '', []
        for l in self.lines:
            m = re.match(r'^\.(SH|SS)\s+"?([^"]*)"?\s*$', l)
            if m:
                out.append((sh, ss, cur))
                cur = []
                if m.group(1) == 'SH':
                    sh, ss = m.group(2), ''
                else:
                    ss = m.group(2)
                continue
            cur.append(l)
        out.append((sh, ss, cur))
        return out

    def section(self, sh, ss=None):
        lines = []
        for a, b, ls in self.sections():
            if a == sh and (ss is None or b == ss):
                lines += ls
        return lines

    def blocks(self, start, end, sh=None, line=unesc, skip=()):
        """The blocks between a start and an end macro, each line through
        line() (lines starting with skip left out), with the section each
        is in."""
        out = []
        for a, _, ls in self.sections():
            if sh is not None and a != sh:
                continue
            blk = None
            for l in ls:
                if l.startswith(start):
                    blk = []
                elif l.startswith(end) and blk is not None:
                    out.append((a, blk))
                    blk = None
                elif blk is not None and not (skip and l.startswith(skip)):
                    blk.append(line(l))
        return out

    def examples(self, sh=None):
        """The .EX/.EE blocks (unescaped), with the section each is in."""
        return self.blocks('.EX', '.EE', sh)

    def text(self, lines=None):
        return '\n'.join(unesc(macro_text(l)) for l in (self.lines if lines is None
                                                          else lines))


def pages(src):
    d = os.path.join(src, 'man')
    return [Page(os.path.join(d, n)) for n in sorted(os.listdir(d))
            if re.search(r'\.[1-8]$', n)]


def readme_blocks(src, lang=None):
    """README.md's fenced blocks: (language, [lines])."""
    out, cur, lg = [], None, None
    with open(os.path.join(src, 'README.md'), encoding='utf-8') as f:
        for l in f.read().split('\n'):
            m = re.match(r'^```(\w*)\s*$', l)
            if m and cur is None:
                cur, lg = [], m.group(1)
            elif m:
                if lang is None or lg == lang:
                    out.append((lg, cur))
                cur = None
            elif cur is not None:
                cur.append(l)
    return out


# ------------------------------------------------------------------ #
# The command's options                                                #

_helps = {}


def help_opts(hw, cmd):
    """{option: takes a value} from hwprof CMD --help."""
    if cmd in _helps:
        return _helps[cmd]
    r = run([hw, cmd, '--help'])
    if r.returncode:
        fail('hwprof %s --help exited %d' % (cmd, r.returncode))
    # printed as it is, not as a printf format: a '%%' there is a typo
    if '%%' in r.stdout.replace('%% a %', ''):
        fail('hwprof %s --help prints a literal %%%%' % cmd)
    opts = {}
    for line in r.stdout.split('\n'):
        if not re.match(r'^\s+-', line):
            continue
        field = re.split(r'\s{2,}', line.strip())[0]
        toks = field.replace(',', ' ').split()
        names = []
        while toks and toks[0].startswith('-'):
            names.append(toks.pop(0))
        for n in names:
            opts[n] = opts.get(n, False) or bool(toks)
    _helps[cmd] = opts
    return opts


def has_word(text, word):
    return re.search(r'(?<![\w\-])' + re.escape(word) + r'(?![\w\-])', text) is not None


def case_options(src, hw):
    man = Page(os.path.join(src, 'man', 'hwprof.1'))
    # -h and --help: every command's, said once in the help section
    htext = man.text(man.section('DESCRIPTION', 'help'))
    for o in ('-h', '--help'):
        if not has_word(htext, o):
            fail('hwprof(1) help section does not say that every command takes %s' % o)
    syn = man.text(man.section('SYNOPSIS'))
    chunks = re.split(r'(?m)^hwprof ?(?=\S*)', syn)
    for cmd in CMDS:
        opts = help_opts(hw, cmd)
        if not opts:
            fail('hwprof %s --help lists no option' % cmd)
        sec = man.section('DESCRIPTION', cmd)
        if not sec:
            fail('hwprof(1) has no section for %s' % cmd)
            continue
        text = man.text(sec)
        for o in sorted(opts):
            if o in ('-h', '--help'):
                continue
            if not has_word(text, o):
                fail('hwprof %s --help has %s, which hwprof(1) (section %s) does not '
                     'document' % (cmd, o, cmd))
        # back: the options each tag (.TP) of the section documents
        for i, l in enumerate(sec):
            if l.startswith(('.TP', '.TQ')) and i + 1 < len(sec):
                for o in OPT_RE.findall(unesc(macro_text(sec[i + 1]))):
                    if o not in opts:
                        fail('hwprof(1) section %s documents %s, which hwprof %s --help '
                             'does not list' % (cmd, o, cmd))
        # and the SYNOPSIS lines of the command
        for c in chunks:
            if c.split(None, 1)[:1] == [cmd]:
                for o in OPT_RE.findall(c):
                    if o not in opts:
                        fail('hwprof(1) SYNOPSIS gives hwprof %s %s, which its --help '
                             'does not list' % (cmd, o))
    # the commands hwprof --help lists each have their section
    r = run([hw, '--help'])
    for m in re.finditer(r'(?m)^  (\w+)\s', r.stdout):
        if not man.section('DESCRIPTION', m.group(1)):
            fail('hwprof --help lists the command %s, which hwprof(1) has no section for'
                 % m.group(1))
    # the top-level options the SYNOPSIS gives answer with exit status 0
    top = [c.strip() for c in chunks if c.strip().startswith('-')]
    if not top:
        fail('hwprof(1) SYNOPSIS has no line for hwprof\'s own options')
    for c in top:
        for o in re.split(r'\s*\|\s*', c.strip()):
            if o and run([hw, o]).returncode:
                fail('hwprof(1) SYNOPSIS gives "hwprof %s", which exits non-zero' % o)
    for o in re.findall(r'\[(--?[a-z-]+)\]', run([hw, '--help']).stdout):
        if not has_word(syn, o):
            fail('hwprof --help gives hwprof %s, which hwprof(1) SYNOPSIS does not' % o)
    done('options')


def case_optvalue(src, hw):
    tmp = tempfile.mkdtemp()
    try:
        for cmd in CMDS:
            for o, val in sorted(help_opts(hw, cmd).items()):
                tail = ['--', 'true'] if cmd == 'record' else []
                if not val:
                    # a long option without a value refuses one, as
                    # getopt_long does, and says so
                    if not o.startswith('--'):
                        continue
                    r = run([hw, cmd, o + '=1'] + tail, cwd=tmp)
                    want = 'hwprof: %s takes no value (see hwprof %s --help)' % (o, cmd)
                    if (r.returncode, r.stderr.strip()) != (2, want):
                        fail('hwprof %s %s=1: exit %d, %r, where %r (exit 2) was due' %
                             (cmd, o, r.returncode, r.stderr.strip(), want))
                    else:
                        print('ok: hwprof %s %s=1: takes no value' % (cmd, o))
                    continue
                forms = [([o, '@bad'], o + '=@bad')] if o.startswith('--') else \
                    [([o, '@bad'], o + '@bad')]
                for sep, joined in forms:
                    a = run([hw, cmd] + sep + tail, cwd=tmp)
                    b = run([hw, cmd, joined] + tail, cwd=tmp)
                    if 'unknown option' in b.stderr or (a.returncode, a.stderr) != \
                            (b.returncode, b.stderr):
                        fail('hwprof %s %s differs from %s (exit %d vs %d): %r vs %r' %
                             (cmd, joined, ' '.join(sep), b.returncode, a.returncode,
                              b.stderr.strip(), a.stderr.strip()))
                    else:
                        print('ok: hwprof %s %s as %s' % (cmd, joined, ' '.join(sep)))
    finally:
        shutil.rmtree(tmp)
    done('optvalue')


# ------------------------------------------------------------------ #
# The environment                                                      #

def env_reads(src):
    """{variable: [files that read it]} (comments aside), and the files that read a
    variable named by a non-literal we could not follow."""
    names, opaque = {}, []
    for top in ('lib', 'tools'):
        for d, _, fs in os.walk(os.path.join(src, top)):
            for f in fs:
                if not f.endswith(('.c', '.h')):
                    continue
                p = os.path.join(d, f)
                rel = os.path.relpath(p, src)
                with open(p, encoding='utf-8') as fh:
                    code = fh.read()
                code = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', code, flags=re.S)
                for m in re.finditer(r'\b(?:secure_)?getenv\s*\(\s*([^)]*)\)', code):
                    arg = m.group(1).strip()
                    lit = re.fullmatch(r'"([A-Za-z_][A-Za-z0-9_]*)"', arg)
                    if lit:
                        names.setdefault(lit.group(1), []).append(rel)
                        continue
                    # a name from a table: static const char *const X_vars[]
                    tabs = re.findall(r'\*\s*const\s+\w+_vars\s*\[\s*\]\s*=\s*\{([^}]*)\}',
                                      code)
                    if not tabs:
                        opaque.append('%s: getenv(%s)' % (rel, arg))
                    for t in tabs:
                        for v in re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', t):
                            names.setdefault(v, []).append(rel)
    return names, opaque


def documented(pgs, var):
    for p in pgs:
        if re.search(r'\$' + re.escape(var) + r'(?![\w])', '\n'.join(p.lines)):
            return p.name	# $VAR: the shell's own notation
        env = '\n'.join(p.section('ENVIRONMENT'))
        if has_word(unesc(env), var):
            return p.name
        for l in p.lines:
            if re.match(r'^\.(B|BR|RB|BI|IB|TP)\b', l) and \
                    re.search(r'(^|[\s"])' + re.escape(var) + r'($|[\s",])',
                              unesc(l.split(None, 1)[1] if ' ' in l else '')):
                pos = l.split(None, 1)[1]
                args = macro_args(pos)
                bold = {'B': 'all', 'BR': 0, 'RB': 1, 'BI': 0, 'IB': 1}.get(l[1:3].strip(), None)
                for i, a in enumerate(args):
                    if unesc(a) == var and (bold == 'all' or i % 2 == bold):
                        return p.name
            if re.search(r'\\fB' + re.escape(var.replace('-', '\\-')) + r'\\f[RP]', l):
                return p.name
    return None


def case_env(src):
    names, opaque = env_reads(src)
    for o in opaque:
        fail('%s reads a variable the check cannot name: read it by its literal name, '
             'or from a "static const char *const NAME_vars[]" table' % o)
    if not names:
        fail('found no getenv() in lib/ and tools/: the check is broken')
    pgs = pages(src)
    for v in sorted(names):
        where = documented(pgs, v)
        if where:
            print('ok: %s (read in %s) is documented in %s' %
                  (v, ', '.join(sorted(set(names[v]))), where))
        else:
            fail('the environment variable %s (read in %s) is in no man page: document it '
                 '(in bold, or in an ENVIRONMENT section)' %
                 (v, ', '.join(sorted(set(names[v])))))
    done('env')


# ------------------------------------------------------------------ #
# Command lines in the examples                                        #

def hwprof_lines(src):
    """(where, text) of each hwprof command line in README's shell blocks
    and the pages' examples."""
    out = []
    for lg, blk in readme_blocks(src):
        if lg == 'sh':
            joined = []
            for l in blk:	# an indented line goes on the one above
                if joined and l[:1] in (' ', '\t'):
                    joined[-1] += ' ' + l.strip()
                else:
                    joined.append(l)
            out += [('README.md', l) for l in joined]
    for p in pages(src):
        for _, blk in p.examples():
            out += [(p.name, l[2:]) for l in blk if l.startswith('$ ')]
            out += [(p.name, l) for l in blk if re.match(r'^(mkfifo|hwprof|mpirun|srun)\b', l)]
    return out


def case_shell(src, hw):
    n = 0
    for where, line in hwprof_lines(src):
        code = re.sub(r'\s#.*$', '', line)
        # a usage line ([-c N | -F HZ]) has no pipes; a command line ends at one
        end = r'[^;&]*' if '[' in code else r'[^;&|]*'
        for m in re.finditer(r'(?:^|[\s;&|(/])hwprof\s+(\S+)(' + end + ')', code):
            cmd, rest = m.group(1), m.group(2)
            if cmd.startswith('-') or cmd == 'version':
                if run([hw, cmd]).returncode:
                    fail('%s: "hwprof %s" exits non-zero' % (where, cmd))
                continue
            if cmd == 'help':
                continue
            if cmd not in CMDS:
                fail('%s: "hwprof %s": no such command' % (where, cmd))
                continue
            opts = help_opts(hw, cmd)
            rest = rest.split(' -- ')[0]	# record's command and its arguments
            for o in OPT_RE.findall(rest):
                n += 1
                if o.split('=')[0] not in opts:
                    fail('%s: "hwprof %s%s": %s is not an option of hwprof %s' %
                         (where, cmd, rest.rstrip(), o, cmd))
    if not n:
        fail('found no hwprof command line with an option: the check is broken')
    for i, (lg, blk) in enumerate(readme_blocks(src, 'sh')):
        r = run(['sh', '-n'], input='\n'.join(blk) + '\n')
        if r.returncode:
            fail('README.md shell block %d does not parse: %s' % (i + 1, r.stderr.strip()))
    print('%d options checked' % n)
    done('shell')


# ------------------------------------------------------------------ #
# C examples                                                           #

PRELUDE = '''#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
%(includes)s
static volatile unsigned long sink;
/* the work the examples profile: about 0.2 s of CPU */
static __attribute__((noinline, unused)) void work(void)
{
	for (unsigned long i = 0; i < 200000000ul; i++)
		sink += i;
}
%(file)s
'''

HIST = '''static uint16_t htext[512];
	struct hwprof_region hr = { .base = htext, .size = sizeof(htext), .offset = 0x401000,
				    .scale = 0x10000, .width = 16 };
	struct hwprof_hist_opts opts = { .sz = sizeof(opts), .regions = &hr, .nregions = 1,
					 .index = HWPROF_INDEX_PAPI };
'''

# What each example takes as given (declared around it, never changing it):
# pkg: its pkg-config package; file: file-scope code; before/after: in
# main around it; run: 'yes', 'clock' (needs task-clock), or 'no' (a PMU).
CONTEXT = {
    'hwprof_hist_new.3': dict(pkg='hwprof', run='yes'),
    'hwprof_hist_check.3': dict(pkg='hwprof', run='yes', before=HIST),
    'hwprof_hist_fold.3': dict(
        pkg='hwprof', run='yes',
        file='''static size_t read_samples(uint64_t *ips, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ips[i] = 0x401000 + 2 * (i % 512);
	return n;
}''',
        before=HIST + '''	struct hwprof_hist *h;

	if (hwprof_hist_new(&opts, &h))
		return 2;
''', after='''	for (size_t i = 0; i < 512; i++)
		if (htext[i] != 2)
			return 3;	/* 1024 pcs, 2 in each bucket */
	hwprof_hist_free(h);'''),
    'hwprof_session_new.3': dict(pkg='hwprof', run='clock'),
    'hwprof_session_paths.3': dict(pkg='hwprof', run='clock'),
    'hwprof_set_log.3': dict(pkg='hwprof', run='yes'),
    'profil.3': dict(pkg='hwprof', run='clock', after='''	{
		unsigned long sum = 0;

		for (size_t i = 0; i < len / 2; i++)
			sum += buf[i];
		if (!sum)
			return 3;	/* no sample in the program's text */
	}'''),
    'PAPI_profil.3': dict(pkg='hwprof-papi', run='no', why='PAPI_TOT_CYC needs a PMU',
                          before='''	int EventSet = PAPI_NULL;

	PAPI_library_init(PAPI_VER_CURRENT);
	PAPI_create_eventset(&EventSet);
	PAPI_add_event(EventSet, PAPI_TOT_CYC);
'''),
    'PAPI_flops_rate.3': dict(pkg='hwprof-papi', run='no',
                              why='PAPI_TOT_INS and PAPI_TOT_CYC need a PMU'),
    'libhwprof-mpi.7': dict(pkg='mpi', run='no', why='an MPI job', file='''static void read_mesh(void) {}
static void solve(void) { work(); }''', before='''	MPI_Init(NULL, NULL);
''', after='''	MPI_Finalize();'''),
    'README.md': dict(pkg='hwprof', run='clock', includes='#include <hwprof.h>'),
}


def is_c(lines):
    """A C example: statements, and no shell or output lines (a command,
    hwprof's messages, a JSON file)."""
    if any(re.match(r'^(\$ |#define |#include |hwprof[\s:-]|mkfifo|mpirun|\.\.\.)', l)
           for l in lines) or lines[:1] == ['{']:
        return False
    return any(re.search(r'[;{}]\s*(/\*.*\*/)?\s*$', l) for l in lines)


def is_assignment(line):
    """VAR=value ... or export VAR=value: nothing run."""
    try:
        w = shlex.split(line, comments=True)
    except ValueError:
        return False
    if w[:1] == ['export']:
        w = w[1:]
    return bool(w) and all(re.match(r'^\w+=', x) for x in w)


def split_c(lines):
    """(file scope, body): function definitions go to file scope."""
    file, body, i = [], [], 0
    while i < len(lines):
        l = lines[i]
        if re.match(r'^[A-Za-z_].*\)\s*$', l) and i + 1 < len(lines) and lines[i + 1] == '{':
            j = i + 1
            while j < len(lines) and lines[j] != '}':
                j += 1
            file += lines[i:j + 1]
            i = j + 1
            continue
        body.append(l)
        i += 1
    return '\n'.join(file), '\n'.join(body)


def synopsis_includes(page):
    inc = []
    for l in page.section('SYNOPSIS'):
        m = re.search(r'#include\s*<([^>]+)>', unesc(macro_text(l)))
        if m:
            inc.append('#include <%s>' % m.group(1))
    return '\n'.join(inc)


def c_examples(src):
    """(name, context, program text) of every C example."""
    out = []
    for p in pages(src):
        for sh, blk in p.examples():
            if not is_c(blk):
                continue
            ctx = CONTEXT.get(p.name)
            if ctx is None:
                fail('%s has a C example that tests/check-docs.py does not know: give it a '
                     'CONTEXT entry (its package, what it takes as given)' % p.name)
                continue
            out.append((p.name, ctx, blk, synopsis_includes(p)))
    for lg, blk in readme_blocks(src, 'c'):
        out.append(('README.md', CONTEXT['README.md'], blk, ''))
    # an example no longer taken for C would go unchecked, silently
    for name in sorted(set(CONTEXT) - {n for n, _, _, _ in out}):
        fail('%s: tests/check-docs.py has its context but found no C example there '
             '(is_c() no longer takes it for C, or the example is gone: then drop '
             'its CONTEXT entry)' % name)
    progs = []
    for name, ctx, blk, inc in out:
        file, body = split_c(blk)
        if ctx['pkg'] == 'mpi':
            inc = '#include <mpi.h>'
        prog = PRELUDE % {'includes': ctx.get('includes', inc), 'file': ctx.get('file', '')
                          + '\n' + file}
        prog += 'int main(void)\n{\n%s%s\n%s\n\treturn 0;\n}\n' % (
            ctx.get('before', ''), body, ctx.get('after', ''))
        progs.append((name, ctx, prog))
    return progs


class Installed:
    """This build installed into a temporary DESTDIR, as a user has it."""

    def __init__(self, build, tmp):
        meson = shutil.which('meson')
        if not meson:
            skip('no meson on PATH to install the build')
        r = run([meson, 'install', '-C', build, '--no-rebuild', '--quiet', '--destdir',
                 os.path.join(tmp, 'dest')], timeout=300)
        if r.returncode:
            fail('meson install --destdir: %s' % (r.stderr.strip() or r.stdout.strip()))
            done('examples')
        opts = json.loads(run([meson, 'introspect', build, '--buildoptions']).stdout)
        o = {x['name']: x['value'] for x in opts}
        self.dest = os.path.join(tmp, 'dest')
        self.prefix = o['prefix']
        self.lib = self.dest + os.path.join(o['prefix'], o['libdir'])
        self.inc = self.dest + os.path.join(o['prefix'], o['includedir'])
        self.env = dict(os.environ)
        self.env.update(PKG_CONFIG_PATH=os.path.join(self.lib, 'pkgconfig'),
                        PKG_CONFIG_SYSROOT_DIR=self.dest, LD_LIBRARY_PATH=self.lib,
                        LIBRARY_PATH=self.lib, CPATH=self.inc)
        self.env.pop('LD_PRELOAD', None)

    def sh(self, script, cwd):
        return run(['sh', '-ec', script], cwd=cwd, env=self.env, timeout=300)


def task_clock_ok(hw):
    return re.search(r'(?m)^  task-clock +yes', run([hw, 'list']).stdout) is not None


def case_examples(src, hw, build):
    tmp = tempfile.mkdtemp()
    try:
        inst = Installed(build, tmp)
        clock = task_clock_ok(hw)
        progs = c_examples(src)
        if not progs:
            fail('found no C example: the check is broken')
        mpi_line = None
        mp = Page(os.path.join(src, 'man', 'libhwprof-mpi.7'))
        for l in mp.section('SYNOPSIS'):
            t = unesc(macro_text(l)).strip()
            if t.startswith('cc '):
                mpi_line = t
        if not mpi_line:
            fail('libhwprof-mpi(7) SYNOPSIS has no cc line')
        cflags = '-std=gnu11 -Wall -Werror -Wno-unused-variable -Wno-unused-but-set-variable ' \
                 '-Wno-unused-function -Wno-unused-parameter'
        for k, (name, ctx, prog) in enumerate(progs):
            d = os.path.join(tmp, 'ex%d' % k)
            os.mkdir(d)
            what = '%s example %d' % (name, k)
            if ctx['pkg'] == 'mpi':
                if not shutil.which('mpicc'):
                    print('SKIP part: %s: no mpicc' % what)
                    continue
                with open(os.path.join(d, 'app.c'), 'w') as f:
                    f.write(prog)
                # the page's own compile line, as it is
                r = inst.sh('%s %s' % (mpi_line, cflags), d)
                exe = os.path.join(d, 'app')
            else:
                with open(os.path.join(d, 'prog.c'), 'w') as f:
                    f.write(prog)
                r = inst.sh('cc prog.c -o prog %s $(pkg-config --cflags --libs %s) '
                            '-Wl,-rpath,"%s"' % (cflags, ctx['pkg'], inst.lib), d)
                exe = os.path.join(d, 'prog')
            if r.returncode:
                fail('%s does not compile:\n%s\n--- the program:\n%s' %
                     (what, (r.stderr + r.stdout).strip(), prog))
                continue
            print('ok: %s compiles' % what)
            if ctx['run'] == 'no' or (ctx['run'] == 'clock' and not clock):
                print('note: %s not run (%s)' % (what, ctx.get('why', '') if ctx['run'] == 'no'
                                                  else 'task-clock cannot be sampled here'))
                continue
            r = run([exe], cwd=d, env=inst.env)
            if r.returncode:
                fail('%s exits %d: %s' % (what, r.returncode, r.stderr.strip()))
            else:
                print('ok: %s runs' % what)
        # README's Installing: the installed command needs no
        # LD_LIBRARY_PATH (it links no libhwprof.so)
        bindir = json.loads(run([shutil.which('meson'), 'introspect', build,
                                 '--buildoptions']).stdout)
        bindir = {x['name']: x['value'] for x in bindir}['bindir']
        env = dict(inst.env)
        env.pop('LD_LIBRARY_PATH', None)
        exe = inst.dest + os.path.join(inst.prefix, bindir, 'hwprof')
        r = run([exe, '--version'], env=env)
        if r.returncode:
            fail('README.md: the installed hwprof needs LD_LIBRARY_PATH: %s' %
                 r.stderr.strip())
        else:
            print('ok: README.md: the installed hwprof runs without LD_LIBRARY_PATH')
        # README's compile lines, as they are, on programs of the kind each
        # builds: the session example, a PAPI one, a profil one
        home = os.path.join(tmp, 'home')
        os.mkdir(home)
        os.symlink(inst.dest + inst.prefix, os.path.join(home, 'hwprof'))
        by = {n: p for n, _, p in progs}
        kinds = {'hwprof-papi': by.get('PAPI_profil.3'), '-lhwprof': by.get('profil.3'),
                 'hwprof': by.get('README.md')}
        n = 0
        for i, (lg, blk) in enumerate(readme_blocks(src, 'sh')):
            if not any(l.startswith('cc ') for l in blk):
                continue
            d = os.path.join(tmp, 'readme%d' % i)
            os.mkdir(d)
            script = []
            for l in blk:
                if l.startswith('cc '):
                    kind = next(k for k in kinds if k in l)
                    with open(os.path.join(d, 'prog.c'), 'w') as f:
                        f.write(kinds[kind])
                    if not clock:
                        l = re.sub(r'\s*(&&|;).*', '', l)	# compile only
                    script.append(l)
                    n += 1
                elif is_assignment(l):
                    script.append(l)
            env_home = 'HOME=%s; export HOME; ' % shlex.quote(home)
            for l in script:
                r = inst.sh(env_home + '\n'.join(s for s in script
                                                 if not s.startswith('cc ')) + '\n' + l, d)
                if r.returncode:
                    fail('README.md: "%s" fails:\n%s' % (l, (r.stderr + r.stdout).strip()))
                elif l.startswith('cc '):
                    print('ok: README.md: %s' % l)
        if not n:
            fail('found no cc line in README.md: the check is broken')
    finally:
        shutil.rmtree(tmp)
    done('examples')


# ------------------------------------------------------------------ #
# The pages' SYNOPSIS and structures against the headers               #

def nf_blocks(page, sh=None):
    """The .nf/.fi blocks (as man shows them), with the section each is in."""
    return page.blocks('.nf', '.fi', sh, lambda l: unesc(macro_text(l)),
                       ('.PP', '.sp', '.in', '.\\"'))


# pages whose SYNOPSIS shows calling forms, not a prototype the header has
SYN_FORMS = {'monitor.3': 'the forms of a variadic call: int monitor(caddr_t, ...)'}


def synopsis_program(page):
    """A C file of the page's SYNOPSIS (its #includes, then each
    declaration as the page gives it, which the compiler holds to the
    header's) and its structures (renamed, each member's type and offset
    and the size held to the header's): (text, number of checks)."""
    inc, decls, checks = [], [], []
    for _, blk in nf_blocks(page, 'SYNOPSIS'):
        cur, in_struct = '', False
        for l in blk:
            t = l.strip()
            if re.match(r'struct \w+ \{$', t):
                in_struct = True	# checked below, with the other structures
            elif in_struct:
                in_struct = t != '};'
            elif t.startswith('#include'):
                inc.append(t)
            elif page.name in SYN_FORMS:
                continue
            elif t and not t.startswith(('#define', '/*')):
                cur += ' ' + t
                if cur.rstrip().endswith(';'):
                    decls.append(cur.strip())
                    cur = ''
    n = len(decls)
    for _, blk in nf_blocks(page):
        text = '\n'.join(blk)
        for m in re.finditer(r'(?ms)^struct (\w+) \{\n(.*?)^\};', text):
            tag, body = m.group(1), re.sub(r'/\*.*?\*/', '', m.group(2), flags=re.S)
            if '...' in body:
                continue
            decls.append('struct %s__page {%s};' % (tag, body))
            members = re.findall(r'(\w+)\s*(?:\[[^\]]*\])?\s*;', body)
            for mem in members:
                checks.append('_Static_assert(offsetof(struct %s, %s) == offsetof(struct '
                              '%s__page, %s) && __builtin_types_compatible_p(__typeof__(('
                              '(struct %s *)0)->%s), __typeof__(((struct %s__page *)0)->%s)), '
                              '"%s: struct %s member %s: another type or place than the '
                              'header\'s");' % (tag, mem, tag, mem, tag, mem, tag, mem,
                                                 page.name, tag, mem))
            checks.append('_Static_assert(sizeof(struct %s) == sizeof(struct %s__page), '
                          '"%s: struct %s: members the page does not show");'
                          % (tag, tag, page.name, tag))
            n += 1
    if not inc:
        return None, 0
    return ('#define _GNU_SOURCE\n#include <stddef.h>\n#include <stdint.h>\n'
            '#include <sys/types.h>\n#include <sys/time.h>\n' + '\n'.join(inc) + '\n' +
            '\n'.join(decls) + '\n' + '\n'.join(checks) + '\n'), n


def case_synopsis(src, build):
    tmp = tempfile.mkdtemp()
    try:
        inst = Installed(build, tmp)
        total = 0
        for p in pages(src):
            if not p.name.endswith('.3') or p.lines[0].startswith('.so'):
                continue
            prog, n = synopsis_program(p)
            if not prog:
                fail('%s: no #include in its SYNOPSIS' % p.name)
                continue
            c = os.path.join(tmp, p.name + '.c')
            with open(c, 'w') as f:
                f.write(prog)
            r = run(['cc', '-std=gnu11', '-Werror', '-fsyntax-only', c], env=inst.env)
            if r.returncode:
                fail('%s: its SYNOPSIS or structures are not what the headers declare:\n%s'
                     % (p.name, r.stderr.strip()))
            else:
                print('ok: %s: %d declarations and structures as the headers have them'
                      % (p.name, n))
            total += n
        if total < 100:
            fail('only %d declarations found in the pages: the check is broken' % total)
    finally:
        shutil.rmtree(tmp)
    done('synopsis')


# ------------------------------------------------------------------ #
# Sample outputs                                                       #

def norm(line):
    """A line with its numbers as N and its spaces as one."""
    return re.sub(r'\s+', ' ', re.sub(r'\d+', 'N', line)).strip()


CONV = r'%[-#0 +]*\d*(?:\.\d+|\.\*)?(?:hh|h|ll|l|z|j|t)?[a-zA-Z%]'


def format_strings(src):
    """The string literals of lib/ and tools/ (adjacent ones joined) with
    12 characters or more besides their conversions, as regular
    expressions of what they print."""
    out = set()
    for top in ('lib', 'tools'):
        for d, _, fs in os.walk(os.path.join(src, top)):
            for f in fs:
                if not f.endswith(('.c', '.h')):
                    continue
                with open(os.path.join(d, f), encoding='utf-8') as fh:
                    code = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', fh.read(), flags=re.S)
                for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*', code):
                    lit = ''.join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(0)))
                    lit = lit.replace('\\n', '').replace('\\"', '"').replace('\\\\', '\\')
                    if len(re.sub(CONV, '', lit).strip()) >= 12:
                        out.add(lit)
    res = []
    for lit in out:
        r = ''
        for tok in re.split('(' + CONV + ')', lit):
            if re.fullmatch(CONV, tok):
                r += '%' if tok == '%%' else '.*?' if tok.endswith('s') else '[-+0-9a-fx.]+'
            else:
                r += re.escape(tok)
        res.append(re.compile(r))
    return res


def case_messages(src):
    """Each message line the pages' examples show ("hwprof: ...",
    "hwprof-mpi: ...", a report's "#   " line) is, numbers and names
    aside, made of the strings the code prints: at least 70 % of it
    matched by format strings of lib/ and tools/ (a line the sample case
    makes again from the build is checked there too)."""
    fmts = format_strings(src)
    n = 0
    for p in pages(src):
        for _, blk in p.examples():
            for l in blk:
                if not re.match(r'^(hwprof(-mpi)?: |#   )', l):
                    continue
                if re.search(r' given twice: | are one file: ', l):
                    continue	# file names of the page's own: run in case sample
                n += 1
                cov = [0] * len(l)
                for r in fmts:
                    for m in r.finditer(l):
                        if m.end() - m.start() >= 12:
                            cov[m.start():m.end()] = [1] * (m.end() - m.start())
                if sum(cov) < 0.7 * len(l):
                    fail('%s: the message "%s" is not what the code prints (%d %% of it '
                         'matches its format strings)' % (p.name, l, 100 * sum(cov) // len(l)))
                else:
                    print('ok: %s: %s' % (p.name, l))
    if not n:
        fail('found no message line in the pages: the check is broken')
    done('messages')


def case_sample(src, hw, demo):
    man = Page(os.path.join(src, 'man', 'hwprof.1'))
    ex = man.examples('EXAMPLES')
    if not ex:
        fail('hwprof(1) has no EXAMPLES block')
        done('sample')
    session = ex[0][1]
    tmp = tempfile.mkdtemp()
    try:
        shutil.copy(demo, os.path.join(tmp, 'demo'))
        # the page's session: each command with its output (the commands
        # without output are checked by the shell case)
        steps, cur = [], None
        for l in session:
            if l.startswith('$ '):
                cur = (l[2:], [])
                steps.append(cur)
            elif cur:
                cur[1].append(l)
        steps = [s for s in steps if s[1]]
        if len(steps) < 2:
            fail('hwprof(1) EXAMPLES: no command with its output')
        chosen = None
        for cmd, want in steps:
            if chosen not in (None, 'task-clock'):
                break
            argv = shlex.split(cmd)
            if argv[0] != 'hwprof':
                fail('hwprof(1) EXAMPLES: %s: not an hwprof command' % cmd)
                continue
            r = run([hw] + argv[1:], cwd=tmp, stderr=subprocess.STDOUT)
            got = [l for l in r.stdout.split('\n') if l and not l.startswith('# warning:')]
            if argv[1] == 'record':
                m = re.search(r'hwprof: recording (\S+)', r.stdout)
                chosen = m.group(1) if m else None
                if chosen != 'task-clock':
                    print('SKIP part: the session of hwprof(1) EXAMPLES is of a machine '
                          'without cycles; this one records %s by default' % chosen)
                    break
            if r.returncode:
                fail('hwprof(1) EXAMPLES: "%s" exits %d: %s' % (cmd, r.returncode,
                                                                 r.stdout.strip()))
                continue
            # the header and messages line for line; the rows: the page's are
            # the first ones printed
            head_w = [l for l in want if not re.match(r'^\s+\d', l)]
            head_g = [l for l in got if not re.match(r'^\s+\d', l)]
            rows_w = [l for l in want if re.match(r'^\s+\d', l)]
            rows_g = [l for l in got if re.match(r'^\s+\d', l)]
            if [norm(l) for l in head_w] != [norm(l) for l in head_g]:
                fail('hwprof(1) EXAMPLES: "%s" prints, numbers aside:\n%s\nwhere the page '
                     'shows:\n%s' % (cmd, '\n'.join(head_g), '\n'.join(head_w)))
            elif [norm(l) for l in rows_w] != [norm(l) for l in rows_g[:len(rows_w)]]:
                fail('hwprof(1) EXAMPLES: "%s": its first rows are:\n%s\nwhere the page '
                     'shows:\n%s' % (cmd, '\n'.join(rows_g[:len(rows_w)]), '\n'.join(rows_w)))
            else:
                print('ok: hwprof(1) EXAMPLES: %s: %d lines as the page shows them' %
                      (cmd, len(want)))
            for l in want:	# whole rows: the columns the page shows
                if re.match(r'^\s+\d', l) and len(l) > 80:
                    fail('hwprof(1) EXAMPLES: a row wider than 80 columns: %s' % l)
        # the record line of the DESCRIPTION is the session's
        first = [b[0] for s, b in man.examples('DESCRIPTION')
                 if b and b[0].startswith('hwprof: recording')]
        rec = [l for l in session if l.startswith('hwprof: recording')]
        for l in first:
            if rec and norm(l) != norm(rec[0]):
                fail('hwprof(1): "%s" is not what record says: "%s"' % (l, rec[0]))
        # hwprof-data(5)'s files: read by report as they are; a recorded
        # file's event counts the samples its s lines hold
        dp = Page(os.path.join(src, 'man', 'hwprof-data.5'))
        files = dp.examples('EXAMPLES')
        if not files:
            fail('hwprof-data(5) has no example file')
        for k, (_, blk) in enumerate(files):
            p = os.path.join(tmp, 'ex%d.data' % k)
            with open(p, 'w') as f:
                f.write('\n'.join(blk) + '\n')
            r = run([hw, 'report', p])
            if r.returncode:
                fail('hwprof-data(5) example file %d: report refuses it: %s' %
                     (k + 1, r.stderr.strip()))
                continue
            if any(l.startswith('job ') for l in blk):
                print('ok: hwprof-data(5) example file %d (a job file)' % (k + 1))
                continue
            ev, s = {}, {}
            for l in blk:
                w = l.split()
                if w and w[0] == 'event':
                    ev[w[1]] = int(w[3])
                elif w and w[0] == 's':
                    s[w[1]] = s.get(w[1], 0) + int(w[5])
            bad = [e for e in ev if ev[e] != s.get(e, 0)]
            for e in bad:
                fail('hwprof-data(5) example file %d: event %s says %d samples, its s '
                     'lines hold %d' % (k + 1, e, ev[e], s.get(e, 0)))
            if not bad:
                print('ok: hwprof-data(5) example file %d' % (k + 1))
        # report's line for a file met twice, from the names the page uses
        twice = [b for s, b in man.examples('DESCRIPTION') if any('given twice' in l for l in b)]
        if not twice:
            fail('hwprof(1): no example of a file given twice')
        for blk in twice:
            m = re.match(r'^hwprof: (\S+) given twice', blk[0])
            m2 = re.match(r'^hwprof: (\S+) and (\S+) are one file', blk[-1])
            if not m or not m2 or m2.group(2) != m.group(1):
                fail('hwprof(1): the "given twice" example is not two lines about one file')
                continue
            f, link = m.group(1), m2.group(1)
            os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
            shutil.copy(os.path.join(tmp, 'ex0.data'), os.path.join(tmp, f))
            os.symlink(os.path.relpath(os.path.join(tmp, f), os.path.dirname(
                os.path.join(tmp, link))), os.path.join(tmp, link))
            r = run([hw, 'report', f, f, link], cwd=tmp)
            got = [l for l in r.stderr.split('\n') if l and 'warning:' not in l]
            if got != blk:
                fail('hwprof(1): "hwprof report %s %s %s" says:\n%s\nwhere the page shows:\n%s'
                     % (f, f, link, '\n'.join(got), '\n'.join(blk)))
            else:
                print('ok: hwprof(1): a file given twice, as the page shows')
        # hwprof(7): the version macros as <hwprof.h> has them
        hp = Page(os.path.join(src, 'man', 'hwprof.7'))
        with open(os.path.join(src, 'include', 'hwprof.h'), encoding='utf-8') as f:
            hdr = f.read()
        n = 0
        for _, blk in hp.examples():
            for l in blk:
                m = re.match(r'#define (HWPROF_VERSION_\w+) (\d+)$', l)
                if m:
                    n += 1
                    if not re.search(r'(?m)^#define %s %s$' % m.groups(), hdr):
                        fail('hwprof(7): "%s" is not what <hwprof.h> says' % l)
        if not n:
            fail('hwprof(7): no version macros shown: the check is broken')
    finally:
        shutil.rmtree(tmp)
    done('sample')


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: check-docs.py CASE SRCDIR HWPROF BUILDDIR DEMO')
    case, src = sys.argv[1], sys.argv[2]
    hw = sys.argv[3] if len(sys.argv) > 3 else None
    if case == 'options':
        case_options(src, hw)
    elif case == 'optvalue':
        case_optvalue(src, hw)
    elif case == 'env':
        case_env(src)
    elif case == 'shell':
        case_shell(src, hw)
    elif case == 'examples':
        case_examples(src, hw, sys.argv[4])
    elif case == 'messages':
        case_messages(src)
    elif case == 'synopsis':
        case_synopsis(src, sys.argv[4])
    elif case == 'sample':
        case_sample(src, hw, sys.argv[5])
    else:
        sys.exit('unknown case ' + case)


if __name__ == '__main__':
    main()
