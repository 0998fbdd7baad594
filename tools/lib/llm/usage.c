#include "llm/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"

int usage_append(const char *path, const cJSON *rec, struct err *e)
{
	struct buf line = BUF_INIT;
	json_canon(rec, false, &line);
	buf_addc(&line, '\n');
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		buf_free(&line);
		return err_set(e, ERR_WORK, "cannot open usage file '%s':", path);
	}
	int rc = 0;
	if (fs_write_all(fd, line.data, line.len) < 0)
		rc = err_set(e, ERR_WORK, "cannot append to usage file '%s':", path);
	close(fd);
	buf_free(&line);
	return rc;
}
