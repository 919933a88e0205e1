/*
 * tests/unit/test-readonly.c — the read-only command classifier
 * (classify/readonly.c, classify/shlex.c) against a table of command
 * lines, most of them adversarial: quoting tricks, operators, expansions,
 * redirections, here-documents, and each tool's options that write or run
 * something. Every unsafe verdict must carry a reason and the exact input
 * as its signature. Then the inputs a table of C strings cannot hold: NUL
 * bytes, invalid UTF-8, 1 MB lines.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../gate/readonly.h"
#include "../../gate/shlex.h"
#include "tap.h"
#include "ro-check.h"



/* clang-format off */
/* sig: the expected signature of a safe line, NULL = not checked (an
 * unsafe line's signature is always checked: the exact input) */
static const struct {
	const char *cmd;
	int safe;
	const char *sig;
} cases[] = {
	/* --- plain read-only commands -------------------------------- */
	{ "ls", SAFE, "ls" },
	{ "ls -la", SAFE, "ls" },
	{ "ls -la src/ tests/", SAFE, "ls" },
	{ "ls --color=never -1", SAFE, "ls" },
	{ "cat README.md", SAFE, "cat" },
	{ "cat -n a b c", SAFE, "cat" },
	{ "head -n 20 file.c", SAFE, "head" },
	{ "head -5 file.c", SAFE, "head" },
	{ "tail -n 20 file.c", SAFE, "tail" },
	{ "tail -n +2 data.csv", SAFE, "tail" },
	{ "tail -20 log", SAFE, "tail" },
	{ "tail -c 100 x", SAFE, "tail" },
	{ "tail --lines=5 x", SAFE, "tail" },
	{ "wc -l *.c", SAFE, "wc" },
	{ "wc -c a b", SAFE, "wc" },
	{ "grep -rn TODO .", SAFE, "grep" },
	{ "grep -E 'a|b' file", SAFE, "grep" },
	{ "grep -v '^#' /etc/fstab", SAFE, "grep" },
	{ "egrep foo bar", SAFE, "egrep" },
	{ "fgrep -x foo bar", SAFE, "fgrep" },
	{ "grep foo src/*.c", SAFE, "grep" },
	{ "rg foo", SAFE, "rg" },
	{ "rg -n --hidden -g '*.c' foo src", SAFE, "rg" },
	{ "rg --no-pre foo", SAFE, "rg" },
	{ "rg -tc -C3 foo", SAFE, "rg" },
	{ "find . -name '*.c'", SAFE, "find" },
	{ "find . -type f -maxdepth 2 -print", SAFE, "find" },
	{ "find src -name '*.h' -o -name '*.c'", SAFE, "find" },
	{ "find . \\( -name a -o -name b \\) -print0", SAFE, "find" },
	{ "find . ! -path './.git/*' -newer Makefile", SAFE, "find" },
	{ "find -L . -xtype l", SAFE, "find" },
	{ "find . -name -delete", SAFE, "find" },
	{ "find . -newermt 2024-01-01 -ls", SAFE, "find" },
	{ "find . -printf '%p %s\\n'", SAFE, "find" },
	{ "find", SAFE, "find" },
	{ "sed -n 1p file", SAFE, "sed" },
	{ "sed -n '1,10p' file", SAFE, "sed" },
	{ "sed 's/foo/bar/g' file", SAFE, "sed" },
	{ "sed -e 's/a/b/' -e 's/c/d/' f", SAFE, "sed" },
	{ "sed -E 's/(a|b)+/x/2' f", SAFE, "sed" },
	{ "sed -n '/start/,/end/{/x/d;p}' f", SAFE, "sed" },
	{ "sed ':a;N;$!ba;s/\\n/ /g' f", SAFE, "sed" },
	{ "sed '$d' f", SAFE, "sed" },
	{ "sed 's|/usr|/opt|' f", SAFE, "sed" },
	{ "sed 's/[/]/x/' f", SAFE, "sed" },
	{ "sed 'y/abc/xyz/' f", SAFE, "sed" },
	{ "sed '1i\\\nheader' f", SAFE, "sed" },
	{ "sed '/x/a text with w in it' f", SAFE, "sed" },
	{ "sed 0~3d f", SAFE, "sed" },
	{ "sed -n '/re/Ip' f", SAFE, "sed" },
	{ "sed '# comment w x\n p' f", SAFE, "sed" },
	{ "sed 'r other' f", SAFE, "sed" },
	{ "sed 's/w/e/' f", SAFE, "sed" },
	{ "sed --posix -n p f", SAFE, "sed" },
	{ "sort file", SAFE, "sort" },
	{ "sort -rn -k2,2 file", SAFE, "sort" },
	{ "sort -t: -k3n /etc/passwd", SAFE, "sort" },
	{ "sort --unique --reverse f", SAFE, "sort" },
	{ "uniq f", SAFE, "uniq" },
	{ "uniq -c", SAFE, "uniq" },
	{ "uniq -c -", SAFE, "uniq" },
	{ "uniq --count f", SAFE, "uniq" },
	{ "echo hello world", SAFE, "echo" },
	{ "echo -e 'a\\tb'", SAFE, "echo" },
	{ "echo", SAFE, "echo" },
	{ "printf '%s\\n' a b", SAFE, "printf" },
	{ "printf '%-10s|%5.2f\\n' x 3.14", SAFE, "printf" },
	{ "printf -- '-%s-\\n' x", SAFE, "printf" },
	{ "printf 'no conversion'", SAFE, "printf" },
	{ "printf '%(%F)T\\n' -1", SAFE, "printf" },
	{ "printf '100%%\\n'", SAFE, "printf" },
	{ "pwd", SAFE, "pwd" },
	{ "which git", SAFE, "which" },
	{ "type ls", SAFE, "type" },
	{ "stat -c %s file", SAFE, "stat" },
	{ "du -sh .", SAFE, "du" },
	{ "df -h", SAFE, "df" },
	{ "file README.md", SAFE, "file" },
	{ "file -b --mime-type x.png", SAFE, "file" },
	{ "diff -u a b", SAFE, "diff" },
	{ "cmp a b", SAFE, "cmp" },
	{ "tree", SAFE, "tree" },
	{ "tree -L 2 -a src", SAFE, "tree" },
	{ "tree -ad --noreport", SAFE, "tree" },
	{ "uname -a", SAFE, "uname" },
	{ "date", SAFE, "date" },
	{ "date +%Y-%m-%d", SAFE, "date" },
	{ "date -u -d @0", SAFE, "date" },
	{ "date -r Makefile", SAFE, "date" },
	{ "env", SAFE, "env" },
	{ "env -0", SAFE, "env" },
	{ "env -i", SAFE, "env" },
	{ "env -u HOME", SAFE, "env" },
	{ "printenv", SAFE, "printenv" },
	{ "printenv HOME PATH", SAFE, "printenv" },
	{ "id -u", SAFE, "id" },
	{ "whoami", SAFE, "whoami" },
	{ "hostname", SAFE, "hostname" },
	{ "hostname -f", SAFE, "hostname" },
	{ "basename /a/b.c .c", SAFE, "basename" },
	{ "dirname /a/b", SAFE, "dirname" },
	{ "realpath ../x", SAFE, "realpath" },
	{ "readlink -f /proc/self/exe", SAFE, "readlink" },
	{ "true", SAFE, "true" },
	{ "false", SAFE, "false" },
	{ "test -f Makefile", SAFE, "test" },
	{ "[ -d src ]", SAFE, "[" },
	{ "nproc", SAFE, "nproc" },
	{ "free -h", SAFE, "free" },
	{ "free -m -c 2", SAFE, "free" },
	{ "uptime", SAFE, "uptime" },
	{ "ps aux", SAFE, "ps" },
	{ "ps -ef --forest", SAFE, "ps" },
	{ "jq . package.json", SAFE, "jq" },
	{ "jq -r '.name' package.json", SAFE, "jq" },
	{ "cut -d: -f1 /etc/passwd", SAFE, "cut" },
	{ "tr a-z A-Z", SAFE, "tr" },
	{ "sha256sum a b", SAFE, "sha256sum" },
	{ "od -c f", SAFE, "od" },
	{ "cd /tmp", SAFE, "cd" },
	{ "seq 1 10", SAFE, "seq" },
	/* --- git: the few subcommands that need nothing (the rest are in
	 * git_cases below) ----------------------------------------------- */
	{ "git version", SAFE, "git version" },
	{ "git --no-pager version", SAFE, "git version" },
	{ "git --no-pager worktree list", SAFE, "git worktree list" },
	{ "git --no-pager remote -v", SAFE, "git remote" },
	/* --- quoting ---------------------------------------------------- */
	{ "l's'", SAFE, "ls" },
	{ "\"ls\"", SAFE, "ls" },
	{ "\\ls", SAFE, "ls" },
	{ "l\"\"s", SAFE, "ls" },
	{ "g'i't version", SAFE, "git version" },
	{ "git 'version'", SAFE, "git version" },
	{ "echo 'a;b|c&d>e<f'", SAFE, "echo" },
	{ "echo \"a;b|c&d>e<f\"", SAFE, "echo" },
	{ "echo a\\;b\\|c\\>d", SAFE, "echo" },
	{ "echo '$(rm x)' '`rm x`'", SAFE, "echo" },
	{ "echo \"\\$(rm x)\"", SAFE, "echo" },
	{ "echo \"\\`rm x\\`\"", SAFE, "echo" },
	{ "echo 'it'\\''s'", SAFE, "echo" },
	{ "echo \"a\\\"b\"", SAFE, "echo" },
	{ "grep 'foo$' f", SAFE, "grep" },
	{ "grep \"foo$\" f", SAFE, "grep" },
	{ "grep foo$ f", SAFE, "grep" },
	{ "echo ''", SAFE, "echo" },
	{ "echo #not an argument", SAFE, "echo" },
	{ "echo a#b", SAFE, "echo" },
	{ "ls #; rm -rf x", SAFE, "ls" },
	{ "ls # comment\n", SAFE, "ls" },
	{ "# only a comment\nls", SAFE, "ls" },
	{ "l\\\ns -la", SAFE, "ls" },
	{ "ls \\\n  -la", SAFE, "ls" },
	{ "echo café ünïcödé 日本", SAFE, "echo" },
	{ "grep -r 'λ' .", SAFE, "grep" },
	{ "ls\\;rm x", UNSAFE, NULL },
	{ "\"ls\" ; rm x", UNSAFE, NULL },
	{ "ls';'rm x", UNSAFE, NULL },
	{ "'ls -la'", UNSAFE, NULL },
	{ "\"git status\"", UNSAFE, NULL },
	{ "echo 'unterminated", UNSAFE, NULL },
	{ "echo \"unterminated", UNSAFE, NULL },
	{ "echo \"a'b", UNSAFE, NULL },
	{ "ls \\", UNSAFE, NULL },
	{ "echo $'\\x41'", UNSAFE, NULL },
	{ "echo $\"hello\"", UNSAFE, NULL },
	{ "r\\m x", UNSAFE, NULL },
	{ "r'm' -rf /", UNSAFE, NULL },
	{ "ls # \\\nrm x", UNSAFE, NULL },
	{ "ls\t\t-l", SAFE, "ls" },
	{ "ls\r", UNSAFE, NULL },
	{ "ls\x01", UNSAFE, NULL },
	{ "ls\x7f", UNSAFE, NULL },
	{ "ls\xc2\xa0-la", UNSAFE, NULL },       /* no-break space */
	{ "ls\xe2\x80\x8b", UNSAFE, NULL },      /* zero-width space */
	{ "echo \xe2\x80\xae" "abc", UNSAFE, NULL }, /* right-to-left override */
	{ "ls\xef\xbc\x9brm x", UNSAFE, NULL },  /* fullwidth ; is a letter */
	{ "", UNSAFE, NULL },
	{ "   ", UNSAFE, NULL },
	{ "\n\n", UNSAFE, NULL },
	{ "# just a comment", UNSAFE, NULL },
	/* --- operators: every segment must be safe ----------------------- */
	{ "ls; pwd", SAFE, "ls; pwd" },
	{ "ls && pwd", SAFE, "ls && pwd" },
	{ "ls || echo none", SAFE, "ls || echo none" },
	{ "ls -la | grep foo | wc -l", SAFE, "ls -la | grep foo | wc -l" },
	{ "ls |& grep foo", SAFE, "ls |& grep foo" },
	{ "ls\npwd\n", SAFE, "ls\npwd\n" },
	{ "ls &&\n pwd", SAFE, "ls &&\n pwd" },
	{ "ls;", SAFE, "ls" },
	{ "ls\n", SAFE, "ls" },
	{ "\n\nls\n\n", SAFE, "ls" },
	{ "cat f | sort | uniq -c | sort -rn | head", SAFE, NULL },
	{ "git version && ls -la && git --no-pager remote -v", SAFE, NULL },
	{ "ls &\\\n& pwd", SAFE, NULL },
	{ "ls && rm x", UNSAFE, NULL },
	{ "ls || rm x", UNSAFE, NULL },
	{ "ls; rm x", UNSAFE, NULL },
	{ "ls\nrm x", UNSAFE, NULL },
	{ "ls | sh", UNSAFE, NULL },
	{ "ls | bash", UNSAFE, NULL },
	{ "ls | tee x", UNSAFE, NULL },
	{ "ls | xargs rm", UNSAFE, NULL },
	{ "cat f | sed 's/a/b/w out'", UNSAFE, NULL },
	{ "npm test; rm -rf x", UNSAFE, NULL },
	{ "ls &", UNSAFE, NULL },
	{ "ls & pwd", UNSAFE, NULL },
	{ "ls &&", UNSAFE, NULL },
	{ "ls |", UNSAFE, NULL },
	{ "; ls", UNSAFE, NULL },
	{ "ls ;; pwd", UNSAFE, NULL },
	{ "ls ;& pwd", UNSAFE, NULL },
	{ "ls && && pwd", UNSAFE, NULL },
	{ "| ls", UNSAFE, NULL },
	{ "(ls)", UNSAFE, NULL },
	{ "(rm x)", UNSAFE, NULL },
	{ "{ ls; }", UNSAFE, NULL },
	{ "ls; { rm x; }", UNSAFE, NULL },
	{ "if true; then rm x; fi", UNSAFE, NULL },
	{ "for f in *; do cat $f; done", UNSAFE, NULL },
	{ "while true; do ls; done", UNSAFE, NULL },
	{ "case x in x) ls;; esac", UNSAFE, NULL },
	{ "function f { ls; }", UNSAFE, NULL },
	{ "f() { ls; }", UNSAFE, NULL },
	{ "! ls", UNSAFE, NULL },
	{ "time ls", UNSAFE, NULL },
	{ "[[ -f x ]]", UNSAFE, NULL },
	{ "coproc ls", UNSAFE, NULL },
	/* --- redirections ------------------------------------------------ */
	{ "echo > x", UNSAFE, NULL },
	{ "echo x>y", UNSAFE, NULL },
	{ "echo x >> y", UNSAFE, NULL },
	{ "echo x >| y", UNSAFE, NULL },
	{ "cat <> f", UNSAFE, NULL },
	{ "ls &> out", UNSAFE, NULL },
	{ "ls &>> out", UNSAFE, NULL },
	{ "ls 2>err", UNSAFE, NULL },
	{ "ls 1>out", UNSAFE, NULL },
	{ "ls >&out", UNSAFE, NULL },
	{ "ls 2>&3", UNSAFE, NULL },
	{ "ls >&3", UNSAFE, NULL },
	{ "ls 1>&2 3>x", UNSAFE, NULL },
	{ "ls >\"x\"", UNSAFE, NULL },
	{ "ls > /dev/null/../x", UNSAFE, NULL },
	{ "ls >/dev/nul?", UNSAFE, NULL },
	{ "ls >&\"1\"", UNSAFE, NULL },
	{ "> x", UNSAFE, NULL },
	{ "< x", UNSAFE, NULL },
	{ "ls >", UNSAFE, NULL },
	{ "ls > #x", UNSAFE, NULL },
	{ "cat < /dev/tcp/example.com/80", UNSAFE, NULL },
	{ "cat < \"/dev/udp/1.2.3.4/53\"", UNSAFE, NULL },
	/* dash reads `ls &>/dev/null rm x` as `ls &` and `>/dev/null rm x` */
	{ "ls &>/dev/null rm -rf x", UNSAFE, NULL },
	{ "du &>/dev/null x", UNSAFE, NULL },
	{ "ls -la &>/dev/null; pwd", SAFE, NULL },
	{ "ls -la &>/dev/null 2>&1", SAFE, "ls" },
	/* dash takes only one digit as a descriptor: `10>x` is "10" >x */
	{ "uniq a 10>/dev/null", UNSAFE, NULL },
	{ "tree 10>/dev/null", UNSAFE, NULL },
	{ "date 0101010120>/dev/null", UNSAFE, NULL },
	{ "ls 9>/dev/null", SAFE, "ls" },
	{ "cat <(rm x)", UNSAFE, NULL },
	{ "diff <(ls a) <(ls b)", UNSAFE, NULL },
	{ "ls >(tee x)", UNSAFE, NULL },
	{ "ls 0<&3", UNSAFE, NULL },
	{ "echo 2>/dev/null", SAFE, "echo" },
	{ "ls >/dev/null", SAFE, "ls" },
	{ "ls > /dev/null 2>&1", SAFE, "ls" },
	{ "ls &>/dev/null", SAFE, "ls" },
	{ "ls &>>/dev/null", SAFE, "ls" },
	{ "ls >>/dev/null", SAFE, "ls" },
	{ "ls >\"/dev/null\"", SAFE, "ls" },
	{ "ls 2>&1", SAFE, "ls" },
	{ "ls >&2", SAFE, "ls" },
	{ "ls 1>&2", SAFE, "ls" },
	{ "ls 2>&-", SAFE, "ls" },
	{ "ls >&-", SAFE, "ls" },
	{ "ls 2>&1 | grep x", SAFE, NULL },
	{ "cat < file", SAFE, "cat" },
	{ "cat <file", SAFE, "cat" },
	{ "wc -l < src/main.c", SAFE, "wc" },
	{ "grep x <<< 'some text'", SAFE, "grep" },
	{ "cat 0<f", SAFE, "cat" },
	{ "ls 2>/dev/null >/dev/null", SAFE, "ls" },
	/* --- expansions and assignments --------------------------------- */
	{ "$(rm x)", UNSAFE, NULL },
	{ "`rm x`", UNSAFE, NULL },
	{ "echo $(rm x)", UNSAFE, NULL },
	{ "echo `rm x`", UNSAFE, NULL },
	{ "echo \"$(rm x)\"", UNSAFE, NULL },
	{ "echo \"`rm x`\"", UNSAFE, NULL },
	{ "echo $((1+1))", UNSAFE, NULL },
	{ "echo $[1+1]", UNSAFE, NULL },
	{ "echo $HOME", UNSAFE, NULL },
	{ "echo ${HOME}", UNSAFE, NULL },
	{ "echo \"$HOME\"", UNSAFE, NULL },
	{ "echo ${X:=y}", UNSAFE, NULL },
	{ "$X args", UNSAFE, NULL },
	{ "${X} args", UNSAFE, NULL },
	{ "\"$X\" args", UNSAFE, NULL },
	{ "find $X", UNSAFE, NULL },
	{ "git $SUB", UNSAFE, NULL },
	{ "ls $1", UNSAFE, NULL },
	{ "ls $@", UNSAFE, NULL },
	{ "ls $\\\n(rm x)", UNSAFE, NULL },
	{ "X=1 ls", UNSAFE, NULL },
	{ "LD_PRELOAD=/tmp/x.so ls", UNSAFE, NULL },
	{ "GIT_PAGER=sh git log", UNSAFE, NULL },
	{ "PAGER='rm -rf x' git log", UNSAFE, NULL },
	{ "X=1", UNSAFE, NULL },
	{ "PATH=. ; ls", UNSAFE, NULL },
	{ "a[0]=1 ls", UNSAFE, NULL },
	{ "ls {a,b}", UNSAFE, NULL },
	{ "find . -{de,}lete", UNSAFE, NULL },
	{ "git log @{u}..", UNSAFE, NULL },
	{ NLOG " log --no-textconv '@{u}..'", SAFE, "git log" },
	{ "echo ~root", UNSAFE, NULL },
	{ "cat ~+/x", UNSAFE, NULL },
	{ "cat ~/.profile", SAFE, "cat" },
	{ "ls ~", SAFE, "ls" },
	{ "find ~ -name x", SAFE, "find" },
	{ "~/bin/ls", UNSAFE, NULL },
	{ "sed =p f", UNSAFE, NULL },          /* zsh: =p is a path */
	{ "sed = f", SAFE, "sed" },
	{ "printf =%s x", UNSAFE, NULL },
	{ "find . -name =x", SAFE, "find" },
	{ "ls *.c", SAFE, "ls" },
	{ "cat src/*.h", SAFE, "cat" },
	{ "l? -la", UNSAFE, NULL },
	{ "*", UNSAFE, NULL },
	{ "/bin/ls", UNSAFE, NULL },
	{ "./ls", UNSAFE, NULL },
	{ "/usr/bin/git status", UNSAFE, NULL },
	{ "find *", UNSAFE, NULL },
	{ "find . -name *.c", UNSAFE, NULL },
	{ "sed -n p *", UNSAFE, NULL },
	{ "sort *", UNSAFE, NULL },
	{ "uniq a*", UNSAFE, NULL },
	{ "git diff *.c", UNSAFE, NULL },
	{ "rg foo *", UNSAFE, NULL },
	{ "tail *.log", UNSAFE, NULL },
	{ "printf *", UNSAFE, NULL },
	{ "ls [ab]", SAFE, "ls" },
	{ "echo @(a|b)", UNSAFE, NULL },
	{ "ls *(e:'rm x':)", UNSAFE, NULL },
	{ "echo !(x)", UNSAFE, NULL },
	/* --- here-documents ---------------------------------------------- */
	{ "cat <<EOF\nhello\nEOF", SAFE, "cat" },
	{ "cat <<EOF\nhello\nEOF\n", SAFE, "cat" },
	{ "cat <<'EOF'\n$(rm x) `rm y` $HOME\nEOF", SAFE, "cat" },
	{ "cat <<\"EOF\"\n$(rm x)\nEOF", SAFE, "cat" },
	{ "cat <<\\EOF\n$(rm x)\nEOF", SAFE, "cat" },
	{ "cat <<-EOF\n\thello\n\tEOF", SAFE, "cat" },
	{ "cat <<EOF\nbody\n EOF\nrm x\nEOF", SAFE, "cat" },
	{ "cat <<EOF\nbody\nEOF \nrm x\nEOF", SAFE, "cat" },
	{ "grep x <<A | wc -l\na\nA", SAFE, NULL },
	{ "cat <<A; cat <<B\na\nA\nb\nB", SAFE, NULL },
	{ "cat <<EOF && ls\nbody\nEOF", SAFE, NULL },
	{ "cat <<EOF\n$(rm x)\nEOF", UNSAFE, NULL },
	{ "cat <<EOF\n`rm x`\nEOF", UNSAFE, NULL },
	{ "cat <<EOF\n$HOME\nEOF", UNSAFE, NULL },
	{ "cat <<EOF\na\\\nEOF\nrm x\nEOF", UNSAFE, NULL },
	{ "cat <<EOF\nhello\n", UNSAFE, NULL },
	{ "cat <<EOF", UNSAFE, NULL },
	{ "cat <<EOF\nhello\nEOF\nrm x", UNSAFE, NULL },
	{ "cat <<EOF; rm x\nbody\nEOF", UNSAFE, NULL },
	{ "cat <<-EOF\nbody\n  EOF\nrm x", UNSAFE, NULL },
	{ "sh <<EOF\nrm x\nEOF", UNSAFE, NULL },
	{ "cat <<EOF > out\nx\nEOF", UNSAFE, NULL },
	{ "cat <<'EOF' 'a\nb'\nbody\nEOF", UNSAFE, NULL },
	{ "cat <<EOF \\\n-n\nbody\nEOF", UNSAFE, NULL },
	{ "cat <<''\n\n", UNSAFE, NULL },
	/* --- git: anything that writes, runs, or goes elsewhere ---------- */
	{ "git -c core.pager=sh status", UNSAFE, NULL },
	{ "git -c alias.x='!rm' x", UNSAFE, NULL },
	{ "git -C /tmp status", UNSAFE, NULL },
	{ "git --git-dir=/x log", UNSAFE, NULL },
	{ "git --work-tree=/x status", UNSAFE, NULL },
	{ "git --exec-path=/x status", UNSAFE, NULL },
	{ "git --namespace=x log", UNSAFE, NULL },
	{ "git -p log", UNSAFE, NULL },
	{ "git --paginate log", UNSAFE, NULL },
	{ "git --config-env=core.pager=X log", UNSAFE, NULL },
	{ "git", UNSAFE, NULL },
	{ "git --no-pager", UNSAFE, NULL },
	{ "git status --output=x", UNSAFE, NULL },
	{ "git diff --output=x", UNSAFE, NULL },
	{ "git diff --output x", UNSAFE, NULL },
	{ "git log -p --outp=x", UNSAFE, NULL },
	{ "git diff --ext-diff", UNSAFE, NULL },
	{ "git diff --ext", UNSAFE, NULL },
	{ "git log -p --textconv", UNSAFE, NULL },
	{ "git show --textc HEAD", UNSAFE, NULL },
	{ "git log --show-signature", UNSAFE, NULL },
	{ "git log --format=%G?", UNSAFE, NULL },
	{ "git log --pretty='%h %GS'", UNSAFE, NULL },
	{ "git for-each-ref --format='%(signature)'", UNSAFE, NULL },
	{ "git log --help", UNSAFE, NULL },
	{ "git grep -O foo", UNSAFE, NULL },
	{ "git grep -nOvim foo", UNSAFE, NULL },
	{ "git grep --open-files-in-pager foo", UNSAFE, NULL },
	{ "git cat-file --filters HEAD:x", UNSAFE, NULL },
	{ "git branch -D x", UNSAFE, NULL },
	{ "git branch -d x", UNSAFE, NULL },
	{ "git branch -m a b", UNSAFE, NULL },
	{ "git branch -M b", UNSAFE, NULL },
	{ "git branch -c a b", UNSAFE, NULL },
	{ "git branch -C b", UNSAFE, NULL },
	{ "git branch newname", UNSAFE, NULL },
	{ "git branch -v newname", UNSAFE, NULL },
	{ "git branch -a newname", UNSAFE, NULL },
	{ "git branch --delete x", UNSAFE, NULL },
	{ "git branch --del x", UNSAFE, NULL },
	{ "git branch --lis x", UNSAFE, NULL },
	{ "git branch -u origin/main", UNSAFE, NULL },
	{ "git branch --set-upstream-to=origin/x", UNSAFE, NULL },
	{ "git branch --edit-description", UNSAFE, NULL },
	{ "git branch -f x HEAD", UNSAFE, NULL },
	{ "git branch --contains -D x", UNSAFE, NULL },
	{ "git branch --points-at HEAD x", UNSAFE, NULL },
	{ "git tag v1", UNSAFE, NULL },
	{ "git tag -a v1 -m x", UNSAFE, NULL },
	{ "git tag -d v1", UNSAFE, NULL },
	{ "git tag -v v1", UNSAFE, NULL },
	{ "git tag -n 5", UNSAFE, NULL },
	{ "git tag --contains HEAD v1", UNSAFE, NULL },
	{ "git push", UNSAFE, NULL },
	{ "git commit -m x", UNSAFE, NULL },
	{ "git checkout .", UNSAFE, NULL },
	{ "git reset --hard", UNSAFE, NULL },
	{ "git fetch", UNSAFE, NULL },
	{ "git pull", UNSAFE, NULL },
	{ "git config core.pager sh", UNSAFE, NULL },
	{ "git stash", UNSAFE, NULL },
	{ "git stash pop", UNSAFE, NULL },
	{ "git stash drop", UNSAFE, NULL },
	{ "git worktree add ../x", UNSAFE, NULL },
	{ "git remote add x y", UNSAFE, NULL },
	{ "git remote show origin", UNSAFE, NULL },
	{ "git help log", UNSAFE, NULL },
	{ "git clean -fdx", UNSAFE, NULL },
	{ "git apply x.patch", UNSAFE, NULL },
	{ "git difftool", UNSAFE, NULL },
	{ "git Status", UNSAFE, NULL },
	{ "git st", UNSAFE, NULL },
	/* --- find -------------------------------------------------------- */
	{ "find . -exec rm {} +", UNSAFE, NULL },
	{ "find . -exec rm '{}' ';'", UNSAFE, NULL },
	{ "find . -e''xec rm '{}' \\;", UNSAFE, NULL },
	{ "find . -execdir rm '{}' +", UNSAFE, NULL },
	{ "find . -ok rm '{}' \\;", UNSAFE, NULL },
	{ "find . -okdir rm '{}' \\;", UNSAFE, NULL },
	{ "find . -delete", UNSAFE, NULL },
	{ "find . -name x -delete", UNSAFE, NULL },
	{ "find . -fprint out", UNSAFE, NULL },
	{ "find . -fprint0 out", UNSAFE, NULL },
	{ "find . -fprintf out '%p'", UNSAFE, NULL },
	{ "find . -fls out", UNSAFE, NULL },
	{ "find . -name", UNSAFE, NULL },
	{ "find . -frobnicate", UNSAFE, NULL },
	{ "find -D exec .", UNSAFE, NULL },
	{ "find . -name x \"-delete\"", UNSAFE, NULL },
	{ "find . -newer x -delete", UNSAFE, NULL },
	{ "find . -printf x -fprint y", UNSAFE, NULL },
	/* --- sed --------------------------------------------------------- */
	{ "sed 's/a/b/w out' f", UNSAFE, NULL },
	{ "sed 's/a/b/gw out' f", UNSAFE, NULL },
	{ "sed 's/a/b/ w out' f", UNSAFE, NULL },
	{ "sed 's/a/b/e' f", UNSAFE, NULL },
	{ "sed 's/a/b/2e' f", UNSAFE, NULL },
	{ "sed 'w out' f", UNSAFE, NULL },
	{ "sed -n '1W out' f", UNSAFE, NULL },
	{ "sed '1e rm x' f", UNSAFE, NULL },
	{ "sed e f", UNSAFE, NULL },
	{ "sed '/x/{p;w out\n}' f", UNSAFE, NULL },
	{ "sed 's/[/]/;a/w x' f", UNSAFE, NULL },
	{ "sed 's|a|b|;w x' f", UNSAFE, NULL },
	{ "sed 's/a\\/b/c/;w x' f", UNSAFE, NULL },
	{ "sed -e 's/a/b/' -e 'w x' f", UNSAFE, NULL },
	{ "sed ':a;w x' f", UNSAFE, NULL },
	{ "sed 'y/abc/xyz/;e' f", UNSAFE, NULL },
	{ "sed '$!N;W x' f", UNSAFE, NULL },
	/* GNU sed carries a/i/c text from one -e into the next */
	{ "sed -e 'a\\' -e 'w x' f", SAFE, "sed" },
	{ "sed -e 'a foo\\' -e 'w x' f", SAFE, "sed" },
	{ "sed -e 'a foo' -e 'w x' f", UNSAFE, NULL },
	{ "sed -n '$!{h;d};x;G;p' f", SAFE, "sed" },
	{ "sed '/x/I,+3{s/a/b/gI;}' f", SAFE, "sed" },
	{ "sed 's/a/b/;W x' f", UNSAFE, NULL },
	{ "sed '1!G;h;$!d' f", SAFE, "sed" },
	{ "sed '\\%x%w y' f", UNSAFE, NULL },
	{ "sed '/[/]/w y' f", UNSAFE, NULL },
	{ "sed 's/x/[/;w y' f", UNSAFE, NULL },
	{ "sed -i 's/a/b/' f", UNSAFE, NULL },
	{ "sed -i.bak 's/a/b/' f", UNSAFE, NULL },
	{ "sed -ni p f", UNSAFE, NULL },
	{ "sed --in-place s/a/b/ f", UNSAFE, NULL },
	{ "sed --in-pl s/a/b/ f", UNSAFE, NULL },
	{ "sed --in s/a/b/ f", UNSAFE, NULL },
	{ "sed -f script.sed f", UNSAFE, NULL },
	{ "sed --file=script.sed f", UNSAFE, NULL },
	{ "sed p f -i", UNSAFE, NULL },
	{ "sed 'w x' -e p", UNSAFE, NULL },
	{ "sed", UNSAFE, NULL },
	{ "sed 's/a/b' f", UNSAFE, NULL },
	{ "sed '{p' f", UNSAFE, NULL },
	{ "sed 'p}' f", UNSAFE, NULL },
	{ "sed 'k' f", UNSAFE, NULL },
	{ "sed ~ f", UNSAFE, NULL },
	{ "sed 's/a/b/x' f", UNSAFE, NULL },
	{ "sed 's/[[:alpha:]/]/x/;a/w y' f", SAFE, "sed" }, /* a text */
	{ "sed 's/[é/]/;a/w y' f", UNSAFE, NULL },
	/* --- sort, uniq, tail, date and the rest ------------------------- */
	{ "sort -co x f", UNSAFE, NULL },
	{ "sort -c f", SAFE, "sort" },
	{ "sort --check=quiet f", SAFE, "sort" },
	{ "sort -o x f", UNSAFE, NULL },
	{ "sort -ox f", UNSAFE, NULL },
	{ "sort -rno x f", UNSAFE, NULL },
	{ "sort --output=x f", UNSAFE, NULL },
	{ "sort --out=x f", UNSAFE, NULL },
	{ "sort --compress-program=sh f", UNSAFE, NULL },
	{ "sort --comp=sh f", UNSAFE, NULL },
	{ "sort -T /tmp f", UNSAFE, NULL },
	{ "sort --ééééééééééééééééééééééééééééééééééééééééé f", UNSAFE, NULL },
	{ "find . -éééééééééééééééééééééééééééééééééééééééé", UNSAFE, NULL },
	{ "git ééééééééééééééééééééééééééééééééééééééééé", UNSAFE, NULL },
	{ "sort --frobnicate f", UNSAFE, NULL },
	{ "uniq a b", UNSAFE, NULL },
	{ "uniq -c a b", UNSAFE, NULL },
	{ "uniq - out", UNSAFE, NULL },
	{ "uniq a -c", UNSAFE, NULL },
	{ "uniq -- a b", UNSAFE, NULL },
	{ "tail -f log", UNSAFE, NULL },
	{ "tail -F log", UNSAFE, NULL },
	{ "tail -nf log", SAFE, "tail" }, /* -n f: an error */
	{ "tail --follow=name log", UNSAFE, NULL },
	{ "tail --fol log", UNSAFE, NULL },
	{ "tail -5f log", UNSAFE, NULL },
	{ "tail +5f log", UNSAFE, NULL },
	{ "tail -n 5 -f log", UNSAFE, NULL },
	{ "tail --retry x", UNSAFE, NULL },
	{ "date -s '2020-01-01'", UNSAFE, NULL },
	{ "date --set=now", UNSAFE, NULL },
	{ "date --se=now", UNSAFE, NULL },
	{ "date 010203042020", UNSAFE, NULL },
	{ "date -us now", UNSAFE, NULL },
	{ "date +%s +%s", UNSAFE, NULL },
	{ "env ls", UNSAFE, NULL },
	{ "env FOO=bar", UNSAFE, NULL },
	{ "env FOO=bar ls", UNSAFE, NULL },
	{ "env -i sh", UNSAFE, NULL },
	{ "env -S 'rm x'", UNSAFE, NULL },
	{ "env -C /tmp", UNSAFE, NULL },
	{ "env -", UNSAFE, NULL },
	{ "hostname evil", UNSAFE, NULL },
	{ "hostname -b x", UNSAFE, NULL },
	{ "hostname -F file", UNSAFE, NULL },
	{ "file -C -m magic", UNSAFE, NULL },
	{ "file -z x.gz", UNSAFE, NULL },
	{ "file --compile", UNSAFE, NULL },
	{ "file -p x", UNSAFE, NULL },
	{ "tree -o out", UNSAFE, NULL },
	{ "tree -aLo 2 out", UNSAFE, NULL },
	{ "tree -L2", UNSAFE, NULL },
	{ "tree -R -H . ", UNSAFE, NULL },
	{ "rg --pre cat x", UNSAFE, NULL },
	{ "rg --pre=cat x", UNSAFE, NULL },
	{ "rg --pr=cat x", UNSAFE, NULL },
	{ "rg --pre-glob '*.pdf' --pre x y", UNSAFE, NULL },
	{ "rg -z foo", UNSAFE, NULL },
	{ "rg -nz foo", UNSAFE, NULL },
	{ "rg --search-zip foo", UNSAFE, NULL },
	{ "rg --hostname-bin=sh foo", UNSAFE, NULL },
	{ "printf -v x y", UNSAFE, NULL },
	{ "printf -vx y", UNSAFE, NULL },
	{ "printf '%n' x", UNSAFE, NULL },
	{ "printf '%5n' x", UNSAFE, NULL },
	{ "printf '%Z'", UNSAFE, NULL },
	{ "printf '%'", UNSAFE, NULL },
	{ "free -s 1", UNSAFE, NULL },
	{ "free --seconds 1", UNSAFE, NULL },
	/* --- not read-only, or not known to be --------------------------- */
	{ "npm test", UNSAFE, NULL },
	{ "make", UNSAFE, NULL },
	{ "python3 x.py", UNSAFE, NULL },
	{ "node -e 1", UNSAFE, NULL },
	{ "cargo build", UNSAFE, NULL },
	{ "curl https://example.com", UNSAFE, NULL },
	{ "wget x", UNSAFE, NULL },
	{ "rm -rf x", UNSAFE, NULL },
	{ "cp a b", UNSAFE, NULL },
	{ "mv a b", UNSAFE, NULL },
	{ "touch x", UNSAFE, NULL },
	{ "mkdir x", UNSAFE, NULL },
	{ "tee x", UNSAFE, NULL },
	{ "dd if=/dev/zero of=x", UNSAFE, NULL },
	{ "chmod +x x", UNSAFE, NULL },
	{ "ln -s a b", UNSAFE, NULL },
	{ "truncate -s0 x", UNSAFE, NULL },
	{ "sh -c ls", UNSAFE, NULL },
	{ "bash -c 'ls'", UNSAFE, NULL },
	{ "eval ls", UNSAFE, NULL },
	{ "exec ls", UNSAFE, NULL },
	{ "source x", UNSAFE, NULL },
	{ ". x", UNSAFE, NULL },
	{ "command ls", UNSAFE, NULL },
	{ "builtin echo x", UNSAFE, NULL },
	{ "sudo ls", UNSAFE, NULL },
	{ "nice ls", UNSAFE, NULL },
	{ "nohup ls", UNSAFE, NULL },
	{ "timeout 1 ls", UNSAFE, NULL },
	{ "xargs ls", UNSAFE, NULL },
	{ "awk '{print}' f", UNSAFE, NULL },
	{ "perl -ne print f", UNSAFE, NULL },
	{ "less f", UNSAFE, NULL },
	{ "more f", UNSAFE, NULL },
	{ "man ls", UNSAFE, NULL },
	{ "vi f", UNSAFE, NULL },
	{ "nano f", UNSAFE, NULL },
	{ "watch ls", UNSAFE, NULL },
	{ "yes", UNSAFE, NULL },
	{ "shuf -o x f", UNSAFE, NULL },
	{ "split f", UNSAFE, NULL },
	{ "export X=1", UNSAFE, NULL },
	{ "alias ls=rm", UNSAFE, NULL },
	{ "set -x", UNSAFE, NULL },
	{ "trap 'rm x' EXIT", UNSAFE, NULL },
	{ "kill 1", UNSAFE, NULL },
	{ "LS", UNSAFE, NULL },
	{ "ls\xc2\xa0", UNSAFE, NULL },
};
/* clang-format on */

/* clang-format on */

/* a shell line in which every word is a plain word: the lexer's view */
static void
test_lexer(void)
{
	struct kb_sh_line l;
	struct kb_err e;
	const char *s = "a 'b c' \"d\\\"e\" f\\ g 2>&1 | h <<EOF\nbody\nEOF\n";
	int rc;

	memset(&l, 0, sizeof(l));
	memset(&e, 0, sizeof(e));
	rc = kb_shlex_parse(s, strlen(s), &l, &e);
	assert_cmpint(rc, 0, "lexer: parses a quoted pipeline (%s)", e.msg);
	assert_cmpint(l.ncmds, 2, "lexer: two commands");
	if (rc == 0 && l.ncmds == 2) {
		assert_cmpint(l.cmds[0].nwords, 4, "lexer: four words");
		if (l.cmds[0].nwords == 4) {
			assert_cmpstr(
			    l.cmds[0].words[1].s, "b c", "lexer: 'b c'");
			assert_cmpstr(
			    l.cmds[0].words[2].s, "d\"e", "lexer: \"d\\\"e\"");
			assert_cmpstr(
			    l.cmds[0].words[3].s, "f g", "lexer: f\\ g");
		}
		assert_cmpint(l.cmds[0].nredirs, 1, "lexer: one redirection");
		if (l.cmds[0].nredirs == 1) {
			assert_cmpint(l.cmds[0].redirs[0].fd, 2, "lexer: fd 2");
			assert_cmpint(l.cmds[0].redirs[0].op, KB_SH_R_DUPOUT,
			    "lexer: >&");
		}
		assert_cmpint(l.cmds[0].sep, KB_SH_SEP_PIPE, "lexer: |");
		assert_cmpint(l.cmds[1].nredirs, 1, "lexer: a here-document");
		assert_cmpint(
		    l.cmds[1].sep, KB_SH_SEP_NEWLINE, "lexer: newline");
	}
	kb_shlex_free(&l);
}


static void
test_table(void)
{
	size_t i, nsafe = 0;

	for (i = 0; i < nitems(cases); i++) {
		char what[96];

		snprintf(
		    what, sizeof(what), "case %zu [%.60s]", i, cases[i].cmd);
		for (char *p = what; *p != '\0'; p++)
			if (*p == '\n' || *p == '\t' || *p == '#')
				*p = ' ';
		check(cases[i].cmd, strlen(cases[i].cmd), cases[i].safe,
		    cases[i].sig, what);
		nsafe += cases[i].safe ? 1 : 0;
	}
	printf("# %zu cases: %zu safe, %zu unsafe\n", nitems(cases), nsafe,
	    nitems(cases) - nsafe);
	ok(nitems(cases) >= 300, "at least 300 cases");
}

/* a git case: the verdict, the rewrite, and the rewrite's own verdict */
/* inputs a C string literal cannot hold */
static void
test_bytes(void)
{
	static const char nul1[] = "ls\0; rm -rf x";
	static const char nul2[] = "npm test\0";
	static const char bad1[] = "ls \xff";
	static const char bad2[] = "echo \xc0\x80";
	static const char bad3[] = "echo \xed\xa0\x80";
	static const char bad4[] = "echo \xe2\x82";
	static const char bad5[] = "echo \xf4\x90\x80\x80";
	struct kb_ro_verdict v;

	check(nul1, sizeof(nul1) - 1, UNSAFE, NULL, "NUL in the middle");
	check(nul2, sizeof(nul2) - 1, UNSAFE, NULL, "NUL at the end");
	check(nul1, 2, SAFE, "ls", "explicit length stops before the NUL");
	check("ls -la; rm", 6, SAFE, "ls", "input need not be NUL-terminated");
	check(bad1, sizeof(bad1) - 1, UNSAFE, NULL, "invalid UTF-8 byte");
	check(bad2, sizeof(bad2) - 1, UNSAFE, NULL, "overlong NUL");
	check(bad3, sizeof(bad3) - 1, UNSAFE, NULL, "UTF-8 surrogate");
	check(bad4, sizeof(bad4) - 1, UNSAFE, NULL, "truncated UTF-8");
	check(bad5, sizeof(bad5) - 1, UNSAFE, NULL, "beyond U+10FFFF");

	/* a NUL-containing line must not share a signature with the line
	 * before its NUL (the always-allow of "npm test") */
	kb_readonly_classify(nul2, sizeof(nul2) - 1, &v);
	ok(strcmp(v.signature, "npm test") != 0,
	    "NUL input's signature differs from the NUL-free prefix");
	kb_ro_verdict_free(&v);

	assert_cmpint(kb_readonly_classify(NULL, 0, &v), 0, "NULL, 0");
	ok(!v.safe, "NULL, 0 is unsafe (empty)");
	kb_ro_verdict_free(&v);
	assert_cmpint(kb_readonly_classify(NULL, 1, &v), -1, "NULL, 1: -1");
	assert_cmpint(kb_readonly_classify("ls", 2, NULL), -1, "NULL out: -1");
	kb_ro_verdict_free(NULL);
}

static void
test_signatures(void)
{
	struct kb_ro_verdict v;
	const char *s;

	s = "npm test; rm -rf x";
	kb_readonly_classify(s, strlen(s), &v);
	ok(!v.safe, "npm test; rm -rf x is unsafe");
	assert_cmpstr(v.signature, s, "npm test; rm -rf x: exact signature");
	kb_ro_verdict_free(&v);

	s = NLOG " log --no-textconv --oneline";
	kb_readonly_classify(s, strlen(s), &v);
	ok(v.safe, "the neutral git log --oneline is safe");
	assert_cmpstr(v.signature, "git log", "git log --oneline: git log");
	kb_ro_verdict_free(&v);

	s = "git stash show -p";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(v.reason,
	    "git stash show can run programs the "
	    "repository's config names: lazy fetch, "
	    "core.pager, core.fsmonitor, diff.submodule "
	    "(the rewritten form turns them off)",
	    "git stash show: the reason names what could run");
	kb_ro_verdict_free(&v);

	s = "git status";
	kb_readonly_classify(s, strlen(s), &v);
	ok(strstr(v.reason, "clean and process filters") != NULL &&
		v.rewritten == NULL,
	    "git status: the filters named, no rewrite");
	kb_ro_verdict_free(&v);

	s = "git -c core.pager=sh status";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(v.reason, "git -c", "git -c: reason");
	kb_ro_verdict_free(&v);

	s = "echo > x";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(v.reason, "redirection to a file", "echo > x: reason");
	kb_ro_verdict_free(&v);

	s = "npm test";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(
	    v.reason, "not a known read-only command", "npm test: reason");
	kb_ro_verdict_free(&v);

	s = "ls | wc -l";
	kb_readonly_classify(s, strlen(s), &v);
	ok(v.safe, "ls | wc -l is safe");
	assert_cmpstr(v.signature, s, "a safe pipeline's signature is exact");
	kb_ro_verdict_free(&v);
}

/* hostile sizes: bounded time, always unsafe or safe, never a crash */
static void
test_big(void)
{
	size_t n = 1024 * 1024, i;
	char *s = malloc(n);
	struct kb_ro_verdict v;
	clock_t t0;
	double secs;

	t0 = clock();
	memset(s, 'a', n);
	check(s, n, UNSAFE, NULL, "1 MB word");
	for (i = 0; i < n; i++)
		s[i] = "ls -la | "[i % 9];
	check(s, n, UNSAFE, NULL, "1 MB pipeline");
	memset(s, '\'', n);
	check(s, n, UNSAFE, NULL, "1 MB of quotes");
	memset(s, '\\', n);
	check(s, n, UNSAFE, NULL, "1 MB of backslashes");

	/* just under the lexer's limit: still parsed, linear time */
	n = KB_SH_MAX_INPUT;
	for (i = 0; i < n; i++)
		s[i] = "ls -l\n"[i % 6];
	s[n - 1] = '\n';
	kb_readonly_classify(s, n, &v);
	ok(v.safe, "64 KiB of ls lines is safe (%s)", v.reason);
	kb_ro_verdict_free(&v);
	for (i = 0; i < n; i++)
		s[i] = "cat <<E\n"[i % 8];
	check(s, n, UNSAFE, NULL, "many pending here-documents");
	for (i = 0; i < n; i++)
		s[i] = "\\\n"[i % 2];
	check(s, n, UNSAFE, NULL, "64 KiB of line continuations");
	memcpy(s, "sed ", 4);
	for (i = 4; i < n; i++) /* whole "-e p " groups, then blanks */
		s[i] = i < 4 + (n - 4) / 5 * 5 ? "-e p "[(i - 4) % 5] : ' ';
	kb_readonly_classify(s, n, &v);
	ok(v.safe, "64 KiB sed command with thousands of -e is safe (%s)",
	    v.reason);
	kb_ro_verdict_free(&v);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ok(secs < 10.0, "hostile sizes in %.2f s", secs);
	free(s);
}

int
main(void)
{
	test_lexer();
	test_table();
	test_bytes();
	test_signatures();
	test_big();
	return tap_done();
}
