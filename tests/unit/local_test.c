/* local_test.c — the local runner's libraries: the Dockerfile copy plan,
 * --config-override, harness templates, trajectory capture, sandboxed file
 * access and the byte relay. */
#include "t.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "local/acp.h"
#include "local/arch.h"
#include "local/container.h"
#include "base/fs.h"
#include "local/launch.h"
#include "base/json.h"
#include "local/relay.h"
#include "local/sandbox.h"
#include "local/task.h"

static void t_dockerfile(void)
{
	char *ctx = t_tmpdir();
	t_put(ctx, "data/a.csv", "1");
	t_put(ctx, "notes.txt", "n");
	t_put(ctx, "x1.json", "1");
	t_put(ctx, "x2.json", "2");
	t_put(ctx, "skills/s/SKILL.md", "---\n");
	struct task t;
	memset(&t, 0, sizeof t);
	struct err e = { 0 };
	const char *df =
		"# a comment\n"
		"FROM debian:12-slim AS build\n"
		"COPY notes.txt /early/\n"
		"FROM debian:12-slim\n"
		"RUN apt-get update && \\\n"
		"    apt-get install -y gawk\n"
		"WORKDIR /app\n"
		"COPY data ./data\n"
		"copy --chown=1000:1000 notes.txt /root/\n"
		"COPY [\"x1.json\", \"x2.json\", \"/srv/in/\"]\n"
		"ADD *.json out/\n"
		"COPY skills /root/.claude/skills\n"
		"COPY --from=build /early /late\n"
		"ADD https://example.com/x.tgz /tmp/\n"
		"WORKDIR sub\n"
		"ENV A=1\n";
	int r = task_parse_dockerfile(&t, df, ctx, "Dockerfile", &e);
	CHECK_INT(r, 0);
	if (r) {
		printf("# %s\n", e.msg);
		return;
	}
	CHECK_INT(t.ncopies, 6);
	char *want_src = path_join(ctx, "data");
	CHECK_STR(t.copies[0].src, want_src);
	CHECK_STR(t.copies[0].dest, "/app/data");
	CHECK(!t.copies[0].as_child);
	CHECK_STR(t.copies[1].dest, "/root");
	CHECK(t.copies[1].as_child);
	CHECK_STR(t.copies[2].dest, "/srv/in");
	CHECK(t.copies[2].as_child);
	CHECK_STR(t.copies[4].dest, "/app/out");
	CHECK(t.copies[4].as_child);
	CHECK_INT(t.skill_copies_dropped, 1);
	CHECK_STR(t.workdir, "/app/sub");
	CHECK_STR(t.base_image, "debian:12-slim");
	CHECK(t.base_platform == NULL);
	CHECK_INT(t.ignored.n, 4);
	CHECK_STR(t.ignored.v[0], "RUN");
	CHECK_STR(t.ignored.v[1], "COPY --from");
	CHECK_STR(t.ignored.v[2], "ADD <url>");
	CHECK_STR(t.ignored.v[3], "ENV");
	struct strlist unrep = STRLIST_INIT;
	task_unreproduced(&t, &unrep); /* EXPOSE-like keywords would not count; these do */
	CHECK_INT(unrep.n, 4);
	strlist_free(&unrep);
	free(want_src);
	task_free(&t);

	memset(&t, 0, sizeof t);
	CHECK_INT(task_parse_dockerfile(&t, "COPY ../secret /root/\n", ctx, "Dockerfile", &e), -1);
	CHECK_STR(e.msg, "Dockerfile:1: COPY source '../secret' is outside the build context");
	task_free(&t);
	memset(&t, 0, sizeof t);
	CHECK_INT(task_parse_dockerfile(&t, "\nCOPY missing.txt /root/\n", ctx, "Dockerfile", &e), -1);
	char *msg = xasprintf("Dockerfile:2: COPY source 'missing.txt' does not exist in %s", ctx);
	CHECK_STR(e.msg, msg);
	free(msg);
	task_free(&t);
	memset(&t, 0, sizeof t);
	/* "COPY . dst" copies the context but never the skills */
	CHECK_INT(task_parse_dockerfile(&t, "COPY . /root/\n", ctx, "Dockerfile", &e), 0);
	CHECK_INT(t.ncopies, 4);
	for (size_t i = 0; i < t.ncopies; i++)
		CHECK(!strstr(t.copies[i].src, "skills"));
	task_free(&t);
	fs_remove_tree(ctx, &e);
	free(ctx);
}

/* The Dockerfile an L1 image is built from: skill sources left out, the rest as written. */
static void t_dockerfile_without_skills(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "FROM x\nRUN a \\\n  && b\n", "FROM x\nRUN a \\\n  && b\n" },
		{ "# a comment\nFROM x\nCOPY skills /root/.claude/skills\n",
		  "FROM x\n# skillc: dropped, the skill is mounted at /skills instead: COPY skills /root/.claude/skills\n" },
		{ "COPY ./skills/x /a/\nCOPY data /data", "# skillc: dropped, the skill is mounted at /skills instead: COPY ./skills/x /a/\nCOPY data /data\n" },
		{ "COPY --chown=1:1 data skills /app/\n", "COPY --chown=1:1 [\"data\",\"/app/\"]\n" },
		{ "ADD [\"skills\", \"notes.txt\", \"/srv/\"]\n", "ADD [\"notes.txt\",\"/srv/\"]\n" },
		{ "COPY skillset /s\n", "COPY skillset /s\n" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = task_dockerfile_without_skills(cases[i].in);
		CHECK_STR(got, cases[i].out);
		free(got);
	}
}

static void t_task_load(void)
{
	char *dir = t_tmpdir();
	char *task = path_join(dir, "my-task");
	t_put(task, "task.toml", "version = \"1.0\"\n[agent]\ntimeout_sec = 30\n[environment]\nallow_internet = false\n"
			       "[verifier]\nnetwork_mode = \"public\"\n[metadata]\nrequired_programs = [\"sh\"]\n");
	t_put(task, "instruction.md", "Do it.\n");
	t_put(task, "environment/Dockerfile", "FROM x\nWORKDIR /work\n");
	struct err e = { 0 };
	cJSON *ov = NULL;
	CHECK_INT(task_parse_override("agent.timeout_sec=5", &ov, &e), 0);
	CHECK_INT(task_parse_override("{\"verifier\": {\"timeout_sec\": 7}}", &ov, &e), 0);
	struct task t;
	int r = task_load(task, ov, &t, &e);
	CHECK_INT(r, 0);
	if (r == 0) {
		CHECK_STR(t.name, "my-task");
		CHECK(t.agent_timeout == 5);
		CHECK(t.verifier_timeout == 7);
		CHECK(!t.agent_network);
		CHECK(t.verifier_network);
		CHECK_STR(t.workdir, "/work");
		CHECK_STR(t.instruction, "Do it.\n");
		CHECK_INT(t.requires.n, 1);
	}
	task_free(&t);
	cJSON_Delete(ov);
	ov = NULL;
	CHECK_INT(task_parse_override("nonsense", &ov, &e), -1);
	CHECK_STR(e.msg, "--config-override 'nonsense': give a JSON object, @file or key.path=value");
	cJSON_Delete(ov);
	t_put(task, "task.toml", "[agent]\ntimeout_sec = -1\n");
	CHECK_INT(task_load(task, NULL, &t, &e), -1);
	char *want = xasprintf("%s/task.toml: [agent] timeout_sec must be a positive number of seconds", task);
	CHECK_STR(e.msg, want);
	free(want);
	task_free(&t);
	fs_remove_tree(dir, &e);
	free(task);
	free(dir);
}

static void t_harness_render(void)
{
	struct err e = { 0 };
	const char *vars[] = { "model", "qwen-27b", "base_url", "http://127.0.0.1:9/v1", NULL };
	cJSON *tmpl = cJSON_Parse("{\"models\": {\"${model}\": {\"url\": \"${base_url}\", \"n\": 3}}, \"k\": \"{env:X}\"}");
	cJSON *out = launch_render(tmpl, vars, &e);
	CHECK(out != NULL);
	CHECK_STR(json_str(json_get(json_get(out, "models"), "qwen-27b"), "url"), "http://127.0.0.1:9/v1");
	CHECK_STR(json_str(out, "k"), "{env:X}");
	cJSON_Delete(out);
	cJSON_Delete(tmpl);
	char *s = launch_subst("a ${nope} b", vars, &e);
	CHECK(s == NULL);
	CHECK_STR(e.msg, "unknown variable ${nope}");
}

static cJSON *J(const char *s)
{
	return cJSON_Parse(s);
}

static void feed(struct acp_traj *t, const char *s)
{
	cJSON *u = J(s);
	acp_traj_update(t, u);
	cJSON_Delete(u);
}

static void t_trajectory(void)
{
	struct acp_traj t;
	acp_traj_init(&t);
	acp_traj_user(&t, "do it");
	feed(&t, "{\"sessionUpdate\": \"agent_thought_chunk\", \"content\": {\"type\": \"text\", \"text\": \"hm\"}}");
	feed(&t, "{\"sessionUpdate\": \"agent_thought_chunk\", \"content\": {\"type\": \"text\", \"text\": \"m.\"}}");
	feed(&t, "{\"sessionUpdate\": \"tool_call\", \"toolCallId\": \"c1\", \"title\": \"skill\", \"kind\": \"other\", \"status\": \"pending\", \"rawInput\": {}}");
	feed(&t, "{\"sessionUpdate\": \"tool_call_update\", \"toolCallId\": \"c1\", \"status\": \"in_progress\", \"rawInput\": {\"name\": \"x\"}}");
	feed(&t, "{\"sessionUpdate\": \"tool_call\", \"toolCallId\": \"c2\", \"title\": \"bash\", \"kind\": \"execute\", \"status\": \"pending\"}");
	feed(&t, "{\"sessionUpdate\": \"tool_call_update\", \"toolCallId\": \"c2\", \"title\": \"ls -l\", \"status\": \"completed\", \"rawInput\": {\"command\": \"ls -l\", \"description\": \"list\"}, \"content\": [{\"type\": \"content\", \"content\": {\"type\": \"text\", \"text\": \"total 0\"}}]}");
	feed(&t, "{\"sessionUpdate\": \"tool_call_update\", \"toolCallId\": \"c1\", \"status\": \"completed\", \"content\": [{\"type\": \"content\", \"content\": {\"type\": \"text\", \"text\": \"<skill_content name=\\\"x\\\">body</skill_content>\"}}]}");
	feed(&t, "{\"sessionUpdate\": \"plan\", \"entries\": []}");
	feed(&t, "{\"sessionUpdate\": \"agent_message_chunk\", \"content\": {\"type\": \"text\", \"text\": \"d\\u00e9j\\u00e0\"}}");
	feed(&t, "{\"sessionUpdate\": \"tool_call\", \"toolCallId\": \"c3\", \"title\": \"write\", \"kind\": \"edit\", \"status\": \"in_progress\"}");
	acp_traj_finish(&t);
	struct buf b = BUF_INIT;
	acp_traj_text(&t, &b);
	CHECK_STR(b.data,
		  "{\"type\": \"user_message\", \"text\": \"do it\"}\n"
		  "{\"type\": \"agent_thought\", \"text\": \"hmm.\"}\n"
		  "{\"type\": \"tool_call\", \"tool_call_id\": \"c1\", \"kind\": \"skill\", \"title\": \"skill {\\\"name\\\": \\\"x\\\"}\", \"status\": \"completed\", \"content\": [{\"type\": \"content\", \"content\": {\"type\": \"text\", \"text\": \"<skill_content name=\\\"x\\\">body</skill_content>\"}}]}\n"
		  "{\"type\": \"tool_call\", \"tool_call_id\": \"c2\", \"kind\": \"execute\", \"title\": \"ls -l\", \"status\": \"completed\", \"content\": [{\"type\": \"content\", \"content\": {\"type\": \"text\", \"text\": \"total 0\"}}]}\n"
		  "{\"type\": \"agent_message\", \"text\": \"d\\u00e9j\\u00e0\"}\n"
		  "{\"type\": \"tool_call\", \"tool_call_id\": \"c3\", \"kind\": \"edit\", \"title\": \"write\", \"status\": \"in_progress\", \"content\": []}");
	CHECK_INT(acp_traj_tool_calls(&t), 3);
	CHECK_INT(acp_traj_skill_calls(&t), 1);
	cJSON *pending = acp_traj_pending(&t);
	CHECK_INT(cJSON_GetArraySize(pending), 1);
	CHECK_STR(cJSON_GetArrayItem(pending, 0)->valuestring, "c3");
	cJSON_Delete(pending);
	buf_free(&b);
	acp_traj_free(&t);
}

static void t_acp_not_started(void)
{
	char *argv[] = { "/no/such/agent", "acp", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct acp_spec spec = { .argv = argv, .envp = envp, .session_cwd = "/", .prompt = "hi", .stderr_fd = -1 };
	struct acp_result r;
	struct err e = { 0 };
	CHECK(acp_run(&spec, &r, &e) == 0);
	CHECK_INT(r.status, ACP_NOT_STARTED);
	CHECK_STR(r.message, "cannot run '/no/such/agent': No such file or directory");
	CHECK_INT(r.exit_code, 127);
	CHECK(!r.handshake_done);
	acp_result_free(&r);
}

static void t_sandbox_open(void)
{
	char *dir = t_tmpdir();
	char *scratch = path_join(dir, "sb");
	char *outside = path_join(dir, "outside");
	t_put(dir, "outside/secret", "s");
	struct sandbox sb;
	struct err e = { 0 };
	CHECK_INT(sandbox_init(&sb, SANDBOX_BWRAP, "/usr/bin/bwrap", scratch, &e), 0);
	CHECK_INT(sandbox_provide(&sb, "/root/data", &e), 0);
	CHECK_INT(sandbox_provide(&sb, "/etc/x", &e), -1);
	CHECK_STR(e.msg, "'/etc/x' lies under /etc, which the local runner keeps for the host (move it under /root or another folder of the task's own)");
	CHECK_INT(sandbox_write(&sb, "/root/a.txt", "hi", 2, 0644, &e), 0);
	CHECK_INT(sandbox_symlink(&sb, outside, "/root/out", &e), 0);
	CHECK_INT(sandbox_symlink(&sb, "a.txt", "/root/rel", &e), 0);
	CHECK_INT(sandbox_symlink(&sb, "/root/a.txt", "/root/abs", &e), 0);
	int fd = sandbox_open(&sb, "/root/a.txt", O_RDONLY, 0, &e);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	fd = sandbox_open(&sb, "/root/rel", O_RDONLY, 0, &e);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	fd = sandbox_open(&sb, "/root/abs", O_RDONLY, 0, &e);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* the link's host target means nothing inside: it is not reachable */
	char *via = xasprintf("/root/out/secret");
	CHECK_INT(sandbox_open(&sb, via, O_RDONLY, 0, &e), -1);
	free(via);
	CHECK_INT(sandbox_open(&sb, "/root/../../etc/passwd", O_RDONLY, 0, &e), -1);
	CHECK_STR(e.msg, "'/root/../../etc/passwd' is not reachable in the sandbox");
	CHECK_INT(sandbox_open(&sb, "/root/new.txt", O_WRONLY | O_CREAT, 0644, &e) >= 0, 1);
	char *host = sandbox_host_path(&sb, "/root/new.txt");
	CHECK(host && fs_exists(host));
	free(host);
	CHECK_INT(sandbox_cleanup(&sb, &e), 0);
	CHECK(!fs_exists(scratch));
	sandbox_free(&sb);
	fs_remove_tree(dir, &e);
	free(scratch);
	free(outside);
	free(dir);
}

static void t_relay(void)
{
	/* upstream: an echo server on a Unix socket; client: TCP to the relay */
	/* a folder deeper than sun_path holds (108 bytes), as jobs dirs can be */
	char *dir = t_tmpdir();
	char *deep = xasprintf("%s/%0120d", dir, 7);
	struct err e = { 0 };
	CHECK_INT(fs_mkdirs(deep, &e), 0);
	char *sock = path_join(deep, "up.sock");
	int up = relay_listen_unix(sock, &e);
	CHECK(up >= 0);
	pid_t pid = fork();
	if (pid == 0) {
		fcntl(up, F_SETFL, 0);
		int c = accept(up, NULL, NULL);
		char b[256];
		ssize_t n;
		while ((n = read(c, b, sizeof b)) > 0)
			if (write(c, b, (size_t)n) < 0)
				break;
		_exit(0);
	}
	close(up);
	int lfd = relay_listen_tcp("127.0.0.1", "0", &e);
	CHECK(lfd >= 0);
	struct sockaddr_storage sa;
	socklen_t len = sizeof sa;
	getsockname(lfd, (struct sockaddr *)&sa, &len);
	struct relay *r = relay_new(lfd, sock, NULL, NULL);
	int c = socket(sa.ss_family, SOCK_STREAM, 0);
	CHECK_INT(connect(c, (struct sockaddr *)&sa, len), 0);
	const char msg[] = "POST /v1/chat/completions";
	CHECK(write(c, msg, sizeof msg - 1) == (ssize_t)(sizeof msg - 1));
	shutdown(c, SHUT_WR);
	char got[256] = "";
	size_t have = 0;
	fcntl(c, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 200 && have < sizeof msg - 1; i++) {
		struct pollfd pf[64];
		int n = relay_pollfds(r, pf, 64);
		poll(pf, (nfds_t)n, 10);
		relay_service(r, pf, n);
		ssize_t k = read(c, got + have, sizeof got - 1 - have);
		if (k > 0)
			have += (size_t)k;
	}
	CHECK_STR(got, msg);
	CHECK_INT(relay_count(r), 1);
	close(c);
	relay_free(r);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(fs_exists(sock));
	fs_remove_tree(dir, &e);
	free(sock);
	free(deep);
	free(dir);
}

/* The architecture decision of SANDBOX=docker, one row per case. */
static void t_arch_decide(void)
{
	static const struct {
		const char *daemon, *image, *qemu;
		bool binfmt;
		int rc;
		const char *platform, *says;
	} cases[] = {
		{ "amd64", "amd64", "auto", false, 0, NULL, "both amd64: no emulation" },
		{ "arm64", "arm64", "yes", true, 0, NULL, "no emulation" },
		{ "arm64", NULL, "no", false, 0, NULL, "not known before its build" },
		{ "arm64", "amd64", "auto", true, 0, "linux/amd64", "emulated with qemu-user-static" },
		{ "arm64", "amd64", "auto", false, -1, NULL, "no qemu-x86_64 handler is registered" },
		{ "amd64", "arm64", "auto", false, -1, NULL, "no qemu-aarch64 handler" },
		{ "arm64", "amd64", "yes", false, 0, "linux/amd64", "binfmt_misc not checked" },
		{ "arm64", "amd64", "no", true, -1, NULL, "QEMU=no" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		enum qemu_mode m;
		struct err e = { 0 };
		CHECK_INT(qemu_mode_parse(cases[i].qemu, &m, &e), 0);
		struct arch_facts f = { cases[i].daemon, cases[i].image, cases[i].binfmt };
		struct arch_plan p;
		int r = arch_decide(&f, m, &p, &e);
		CHECK_INT(r, cases[i].rc);
		if (cases[i].platform)
			CHECK_STR(p.platform, cases[i].platform);
		else
			CHECK(p.platform == NULL);
		CHECK(strstr(r == 0 ? p.why : e.msg, cases[i].says) != NULL);
		arch_plan_free(&p);
	}
	struct err e = { 0 };
	enum qemu_mode m;
	CHECK_INT(qemu_mode_parse("maybe", &m, &e), -1);
	CHECK(strstr(e.msg, "use auto, yes or no") != NULL);
	char buf[32];
	CHECK_STR(arch_of_platform("linux/arm64/v8", buf, sizeof buf), "arm64");
	CHECK_STR(arch_of_platform("x86_64", buf, sizeof buf), "amd64");
	CHECK_STR(arch_docker_name("aarch64"), "arm64");
	CHECK_STR(arch_qemu_name("arm64"), "aarch64");
	struct task t;
	memset(&t, 0, sizeof t);
	char *ctx = t_tmpdir();
	CHECK_INT(task_parse_dockerfile(&t, "FROM a:1 AS one\nFROM --platform=linux/arm64 bb:local AS two\nRUN true\n",
					ctx, "Dockerfile", &e), 0);
	CHECK_STR(t.base_image, "bb:local");
	CHECK_STR(t.base_platform, "linux/arm64");
	task_free(&t);
	free(ctx);
}

/* The engine table: SANDBOX names; podman's containers get our limits,
 * nproc no higher than pid_max; docker's get none. */
static void t_engine(void)
{
	CHECK(engine_named("docker") == &engine_docker);
	CHECK(engine_named("podman") == &engine_podman);
	CHECK(engine_named("bwrap") == NULL);
	CHECK(engine_named(NULL) == NULL);
	struct strlist a = STRLIST_INIT;
	container_limits(&engine_docker, &a);
	CHECK_INT((int)a.n, 0);
	container_limits(&engine_podman, &a);
	CHECK_INT((int)a.n, 4);
	CHECK_STR(a.v[0], "--ulimit");
	CHECK(!strncmp(a.v[1], "nofile=", 7));
	CHECK(!strncmp(a.v[3], "nproc=", 6));
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	if (a.n == 4 && fs_read("/proc/sys/kernel/pid_max", 64, &b, &e) == 0 && b.len) {
		long long pid_max = atoll(b.data), soft = 0, hard = 0;
		CHECK_INT(sscanf(a.v[3], "nproc=%lld:%lld", &soft, &hard), 2);
		CHECK(hard <= pid_max && soft <= hard);
	}
	buf_free(&b);
	strlist_free(&a);
}

int main(void)
{
	RUN(t_dockerfile);
	RUN(t_dockerfile_without_skills);
	RUN(t_task_load);
	RUN(t_harness_render);
	RUN(t_trajectory);
	RUN(t_acp_not_started);
	RUN(t_sandbox_open);
	RUN(t_relay);
	RUN(t_arch_decide);
	RUN(t_engine);
	T_EXIT();
}
