/* skillc-init — what the local runner runs inside a sandbox or a
 * container, where none of our libraries are: it is linked statically
 * from a few sources of base/ and local/ (see the Makefile).
 *   sandbox-init  the agent's supervisor: stdio and the model relay (local/supervisor.h)
 *   hold          a container's first process: reaps orphans; SIGUSR1 ends
 *                 every other process in the container (the agent's, before the
 *                 verifier runs), SIGTERM ends the container
 *   which         where PATH finds programs (the harness, inside an image)
 *   mkdir         makes a folder and its parents (a container's workdir,
 *                 where the engine does not make it: podman)
 *   probe         make doctor's reachability check: one HTTP request to
 *                 ADDR:PORT (the relay's listener), the first line back */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "local/supervisor.h"

#define VERSION "1"

static const char usage[] =
	"usage: skillc-init sandbox-init [--listen ADDR:PORT[,ADDR:PORT] --to SOCKET] -- COMMAND...\n"
	"       skillc-init hold\n"
	"       skillc-init which PROGRAM...\n"
	"       skillc-init mkdir DIR\n"
	"       skillc-init probe IPV4:PORT\n"
	"\n"
	"Run by skillc-local inside a trial's sandbox or container (docs/local.md, docs/containers.md):\n"
	"sandbox-init supervises the agent and carries the model route over SOCKET; hold is a\n"
	"container's first process (SIGUSR1 ends every other process, SIGTERM ends it); which\n"
	"prints one line per PROGRAM, where PATH finds it or nothing (exit 1 when one is missing);\n"
	"mkdir makes DIR and its parents (a container's workdir under podman; exit 1 when it cannot);\n"
	"probe (make doctor) sends one HTTP request to IPV4:PORT and prints the first line back\n"
	"(exit 0 when anything came back, 1 when nothing did within 10 s).\n";

static struct supervisor_spec spec;
static const struct opt sandbox_rows[] = {
	OPT_STRING("listen", &spec.listen, "ADDR:PORT[,ADDR:PORT]", "loopback addresses to relay"),
	OPT_STRING("to", &spec.to, "SOCKET", "the Unix socket the relay carries them to"),
	OPT_END,
};
static const struct opt no_rows[] = { OPT_END };
static const struct opt_cmd cmds[] = {
	{ "sandbox-init", sandbox_rows },
	{ "hold", no_rows },
	{ "which", no_rows },
	{ "mkdir", no_rows },
	{ "probe", no_rows },
	OPT_CMD_END,
};

/* _exit, not exit: a leak checker cannot run without capabilities in here. */
static int sandbox_init(int argc, char **argv)
{
	struct opts_rest rest;
	opts_parse_or_die(sandbox_rows, argc, argv, 2, &rest);
	if (rest.args.n)
		die(2, "sandbox-init: unknown argument '%s' (see --help)", rest.args.v[0]);
	if (!rest.dashdash || rest.dashdash >= argc || (spec.listen && !spec.to))
		die(2, "sandbox-init: give -- COMMAND, and --to SOCKET with --listen (see --help)");
	spec.argv = argv + rest.dashdash;
	opts_rest_free(&rest);
	struct err e = { 0 };
	int status = supervisor_run(&spec, &e);
	if (status < 0) {
		fprintf(stderr, SUPERVISOR_FAILURE " %s\n", e.msg);
		_exit(1);
	}
	_exit(status);
}

static volatile sig_atomic_t got_usr1, got_term;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else if (sig != SIGCHLD)
		got_term = 1;
}

static int hold(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t mask, none;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&mask);
	sigemptyset(&none);
	int sigs[] = { SIGUSR1, SIGTERM, SIGINT, SIGCHLD };
	for (size_t i = 0; i < ARRAY_LEN(sigs); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&mask, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &mask, NULL); /* they arrive only in sigsuspend: none is missed */
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (got_term)
			_exit(0);
		if (got_usr1) {
			got_usr1 = 0;
			kill(-1, SIGKILL); /* as the first process: every other one in the container */
			continue;
		}
		sigsuspend(&none);
	}
}

/* One line per program: where PATH finds it, or an empty line. */
static int which(int n, char **progs)
{
	int missing = 0;
	for (int i = 0; i < n; i++) {
		char *p = fs_find_in_path(progs[i]);
		printf("%s\n", p ? p : "");
		missing += !p;
		free(p);
	}
	return fflush(stdout) == 0 && !ferror(stdout) && !missing ? 0 : 1;
}

/* One HTTP request to addr ("a.b.c.d:port"): whatever comes back means the
 * route is reached (a TLS server answers a plain request too, if only
 * with an alert); a relay whose upstream failed closes with nothing. */
static int probe(const char *addr)
{
	char host[64];
	const char *colon = strrchr(addr, ':');
	struct sockaddr_in sa = { .sin_family = AF_INET };
	if (!colon || (size_t)(colon - addr) >= sizeof host)
		die(2, "probe: give IPV4:PORT, not '%s'", addr);
	snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		die(2, "probe: give IPV4:PORT, not '%s'", addr);
	alarm(10); /* the default action ends us: no answer in time */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		die(1, "probe: cannot connect to %s: %s", addr, strerror(errno));
	static const char req[] = "GET / HTTP/1.0\r\nConnection: close\r\n\r\n";
	if (write(fd, req, sizeof req - 1) < 0)
		die(1, "probe: cannot send to %s: %s", addr, strerror(errno));
	char got[256];
	ssize_t n = read(fd, got, sizeof got - 1);
	close(fd);
	if (n <= 0)
		die(1, "probe: %s closed the connection without an answer (the model route is not reached)", addr);
	got[n] = '\0';
	got[strcspn(got, "\r\n")] = '\0';
	for (char *c = got; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?'; /* a TLS alert is binary */
	printf("%s\n", got);
	return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, VERSION);
#define COMMANDS "sandbox-init, hold, which, mkdir or probe (see --help)"
	if (argc < 2)
		die(2, "missing command: " COMMANDS);
	const char *cmd = argv[1];
	if (!opts_cmd_find(cmds, cmd))
		die(2, "unknown command '%s': " COMMANDS, cmd);
	if (!strcmp(cmd, "sandbox-init"))
		return sandbox_init(argc, argv);
	struct strlist w;
	opts_args_or_die(no_rows, argc, argv, 2, &w);
	bool many = !strcmp(cmd, "which"), none = !strcmp(cmd, "hold");
	if (many ? !w.n : w.n != !none)
		die(2, "%s wants %s (see --help)", cmd, many ? "one PROGRAM or more" : none ?
		    "no argument" : !strcmp(cmd, "probe") ? "one IPV4:PORT" : "one DIR");
	if (none)
		return hold();
	int rc = 0;
	struct err e = { 0 };
	if (many)
		rc = which((int)w.n, w.v);
	else if (!strcmp(cmd, "probe"))
		rc = probe(w.v[0]);
	else if (fs_mkdirs(w.v[0], &e) < 0)
		die(1, "mkdir: %s", e.msg);
	strlist_free(&w);
	return rc;
}
