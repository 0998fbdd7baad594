/* front (front.h): what skillc-eval-skill and the standalone modes of
 * skillc-fast and skillc-deep share: the make command, its settings
 * checked, the links. */
#include "pipeline/front.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "pipeline/settings.h"

int front_begin(struct strlist *argv, long jobs, struct err *e)
{
	char *mk = make_fragment();
	if (!mk)
		return err_set(e, ERR_INPUT,
		               "cannot find skillc.mk beside this tool (bin/../mk/ or "
		               "share/skillc/): reinstall skillc");
	strlist_push(argv, "make");
	strlist_push(argv, "--no-print-directory");
	strlist_push(argv, "-f");
	strlist_push_owned(argv, mk);
	strlist_push_owned(argv, xasprintf("-j%ld", jobs));
	return 0;
}

int front_set(struct strlist *argv, const char *name, const char *value, const char *opt,
              struct err *e)
{
	struct err s = { 0 };
	if (setting_check(setting_find(name), value, &s) < 0)
		return err_set(e, ERR_INPUT, "%s: %s", opt, s.msg);
	strlist_push_owned(argv, xasprintf("%s=%s", name, value));
	return 0;
}

int front_run(struct strlist *argv, const char *goal, struct proc_result *res, struct err *e)
{
	strlist_push(argv, goal);
	struct proc_spec spec = { .argv = argv->v, .stdin_fd = -1, .tee = { -1, -1 } };
	int rc = proc_run(&spec, res, e);
	free(argv->v[--argv->n]);
	argv->v[argv->n] = NULL;
	return rc;
}

int front_link(const char *out, const char *name, const char *target, struct err *e)
{
	char *path = path_join(out, name),
	     *tmp = xasprintf("%s/.%s.link.%ld", out, name, (long)getpid());
	struct stat st;
	int rc = 0;
	if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode))
		rc = err_set(e, ERR_INPUT,
		             "'%s' is not a link this tool made: move it out of --output", path);
	else if (unlink(tmp), symlink(target, tmp) < 0 || rename(tmp, path) < 0)
		rc = err_set(e, ERR_WORK, "cannot link '%s':", path);
	free(path);
	free(tmp);
	return rc;
}

void front_unlink(const char *out, const char *name)
{
	char *path = path_join(out, name);
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		unlink(path);
	free(path);
}

int front_status(const struct proc_result *res)
{
	if (res->interrupted)
		return 128 + res->interrupted;
	return res->exit_code == 0 || res->exit_code == 2 ? res->exit_code : 1;
}

long long front_mark(const char *run)
{
	char *dir = path_join(run, "status");
	struct strlist names = STRLIST_INIT;
	struct err e;
	long long mark = 0;
	if (fs_is_dir(dir) && fs_list_names(dir, &names, &e) == 0)
		for (size_t i = 0; i < names.n; i++) {
			char *p = path_join(dir, names.v[i]);
			struct stat st;
			if (stat(p, &st) == 0 &&
			    st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec > mark)
				mark = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
			free(p);
		}
	strlist_free(&names);
	free(dir);
	return mark;
}
