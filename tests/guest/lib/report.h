/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The execns(2) tests' "report" mode (child.h describes modes): the new
 * program prints what it sees, one "key value" line at a time (its
 * namespaces, descriptors, pid, threads, uid table, host name, environment,
 * root and working directory), optionally after acting (sethostname, a
 * mount, a fork, a nested execns...).  spawn_report() starts a child
 * (child.h's protocol) that execns()es into it, and parses what it printed
 * into a struct report.
 */
#ifndef EXECNS_LIB_REPORT_H
#define EXECNS_LIB_REPORT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <execns.h>
#include "child.h"
#include "ktap.h"
#include "ns.h"
#include "state.h"
#include "sys.h"
#include "uidtab.h"

#define REPORT_ENV	"EXECNS_TEST_ENV"

/*
 * argv: PROG report [OPTION...].  Prints "key value" lines on fd 1 and
 * "end" last.  Options, in order:
 *   host NAME	  sethostname(NAME) first
 *   mount DIR	  mount a tmpfs on DIR, print its device
 *   msgq KEY	  look for the System V message queue KEY
 *   stdin	  read a line from fd 0 and echo it; write a line to fd 2
 *   fork	  fork a child that prints its pid and pid/time namespaces
 *   nest FLAGS	  execns(FLAGS) into the report mode again ("level" counts)
 */
static inline int report_main(int argc, char **argv)
{
	char buf[512];
	long level = 0;
	const char *lv = getenv("EXECNS_TEST_LEVEL");
	int i;

	if (lv)
		level = strtol(lv, NULL, 10);
	printf("level %ld\n", level);
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "host") && i + 1 < argc)
			printf("sethostname %d\n",
			       sethostname(argv[i + 1], strlen(argv[i + 1])) ? errno : 0);
	for (size_t n = 0; n < NR_NS; n++)
		printf("ns %s %lu\n", ns_list[n].name, ns_inode(ns_list[n].name));
	fds_str(buf, sizeof(buf));
	printf("fds %s\n", buf);
	printf("pid %d\n", getpid());
	proc_status_lines(buf, sizeof(buf));
	printf("threads %ld\n", strstr(buf, "Threads:") ?
	       strtol(strstr(buf, "Threads:") + 8, NULL, 10) : -1L);
	printf("table %ld\n", ut_self());	/* the module's id, or the twin's inode */
	gethostname(buf, 64);
	buf[64] = '\0';
	printf("host %s\n", buf);
	printf("env %s\n", getenv(REPORT_ENV) ? getenv(REPORT_ENV) : "(unset)");
	printf("argc %d\n", argc);
	{
		struct place r, c;

		place_of("/", &r);
		place_of(".", &c);
		printf("root %lu %lu %llu\n", (unsigned long)r.dev, (unsigned long)r.ino, r.mnt_id);
		printf("cwd %lu %lu %llu\n", (unsigned long)c.dev, (unsigned long)c.ino, c.mnt_id);
	}
	fflush(stdout);
	for (i = 2; i < argc; i++) {
		const char *arg = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(argv[i], "mount")) {
			struct stat sb = { 0 };
			int err = mount("execns-test", arg, "tmpfs", 0, NULL) ? errno : 0;

			stat(arg, &sb);
			printf("mount %d %lu\n", err, (unsigned long)sb.st_dev);
		} else if (!strcmp(argv[i], "msgq")) {
			int id = msgget((key_t)strtol(arg, NULL, 0), 0);

			printf("msgq %d\n", id < 0 ? errno : 0);
		} else if (!strcmp(argv[i], "stdin")) {
			ssize_t n = read(0, buf, 100);

			buf[n > 0 ? n : 0] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			printf("stdin %s\n", n > 0 ? buf : "(nothing)");
			printf("stderr %d\n", write(2, "from-report\n", 12) == 12);
		} else if (!strcmp(argv[i], "fork")) {
			pid_t p;

			fflush(stdout);
			/* fork() by hand: what a child forked here sees is the report */
			p = fork();
			if (p == 0) {
				printf("child %d %lu %lu\n", getpid(), ns_inode("pid"),
				       ns_inode("time"));
				fflush(stdout);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		} else if (!strcmp(argv[i], "nest")) {
			char *nargv[16] = { argv[0], "report" };
			int k = 2;

			for (int j = i + 2; j < argc && k < 15; j++)
				nargv[k++] = argv[j];
			nargv[k] = NULL;
			snprintf(buf, sizeof(buf), "%ld", level + 1);
			setenv("EXECNS_TEST_LEVEL", buf, 1);
			printf("end\n");
			fflush(stdout);
			execns(strtol(arg, NULL, 0), "/proc/self/exe", nargv, environ);
			/* Still here: report that, and this level once more. */
			printf("nesterr %d\n", errno);
			snprintf(buf, sizeof(buf), "%ld", level);
			setenv("EXECNS_TEST_LEVEL", buf, 1);
			fflush(stdout);
			for (size_t n = 0; n < NR_NS; n++)
				printf("after %s %lu\n", ns_list[n].name, ns_inode(ns_list[n].name));
			break;
		}
	}
	printf("end\n");
	fflush(stdout);
	return 0;
}

/* What one level of the report mode printed. */
struct report {
	int ok;			/* that level's report was found */
	long level;
	unsigned long ns[NR_NS];
	unsigned long after[NR_NS];	/* after a failed nest */
	char fds[256];
	pid_t pid;
	int threads;
	long table;
	char host[65];
	char env[128];
	int argc;
	struct place root, cwd;
	int sethost_err;
	int mount_err;
	unsigned long mount_dev;
	int msgq_err;
	char stdin_line[128];
	int stderr_ok;
	pid_t child_pid;
	unsigned long child_pid_ns, child_time_ns;
	int nest_err;		/* -1: no failed nest */
	int has_after;
	char text[8192];	/* everything that was read, all levels */
};

/* Parse the report of the given level out of text (level 0: the first). */
static inline void parse_report(struct report *r, const char *text, long level)
{
	const char *p = text;
	char key[32], name[32];
	unsigned long v;
	long lv = -1;

	r->ok = 0;
	r->nest_err = -1;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "level %ld", &lv) == 1)
			continue;
		if (lv != level)
			continue;
		r->level = lv;
		if (sscanf(p, "ns %31s %lu", name, &v) == 2) {
			for (size_t i = 0; i < NR_NS; i++)
				if (!strcmp(name, ns_list[i].name))
					r->ns[i] = v;
			r->ok = 1;
		} else if (sscanf(p, "after %31s %lu", name, &v) == 2) {
			for (size_t i = 0; i < NR_NS; i++)
				if (!strcmp(name, ns_list[i].name))
					r->after[i] = v;
			r->has_after = 1;
		} else if (sscanf(p, "%31s", key) == 1) {
			unsigned long a, b, c;

			if (!strcmp(key, "fds"))
				sscanf(p, "fds %255s", r->fds);
			else if (!strcmp(key, "pid"))
				sscanf(p, "pid %d", &r->pid);
			else if (!strcmp(key, "threads"))
				sscanf(p, "threads %d", &r->threads);
			else if (!strcmp(key, "table"))
				sscanf(p, "table %ld", &r->table);
			else if (!strcmp(key, "host"))
				sscanf(p, "host %64s", r->host);
			else if (!strcmp(key, "env"))
				sscanf(p, "env %127s", r->env);
			else if (!strcmp(key, "argc"))
				sscanf(p, "argc %d", &r->argc);
			else if (!strcmp(key, "sethostname"))
				sscanf(p, "sethostname %d", &r->sethost_err);
			else if (!strcmp(key, "mount"))
				sscanf(p, "mount %d %lu", &r->mount_err, &r->mount_dev);
			else if (!strcmp(key, "msgq"))
				sscanf(p, "msgq %d", &r->msgq_err);
			else if (!strcmp(key, "stdin"))
				sscanf(p, "stdin %127s", r->stdin_line);
			else if (!strcmp(key, "stderr"))
				sscanf(p, "stderr %d", &r->stderr_ok);
			else if (!strcmp(key, "child"))
				sscanf(p, "child %d %lu %lu", &r->child_pid, &r->child_pid_ns,
				       &r->child_time_ns);
			else if (!strcmp(key, "nesterr"))
				sscanf(p, "nesterr %d", &r->nest_err);
			else if (sscanf(p, "root %lu %lu %lu", &a, &b, &c) == 3)
				r->root = (struct place){ a, b, c };
			else if (sscanf(p, "cwd %lu %lu %lu", &a, &b, &c) == 3)
				r->cwd = (struct place){ a, b, c };
		}
	}
}

struct report_child {
	int flags;
	char *argv[24];
	void (*prep)(void *);
	void *arg;
};

static inline int report_child_main(void *arg)
{
	struct report_child *rc = arg;
	char *envp[] = { REPORT_ENV "=report-env", "EXECNS_TEST_LEVEL=0", NULL };

	if (open("/", O_RDONLY) < 0)	/* not close-on-exec: must not survive */
		return 97;
	if (rc->prep)
		rc->prep(rc->arg);
	fflush(stdout);
	execns(rc->flags, "/proc/self/exe", rc->argv, envp);
	printf("errno %d\n", errno);
	fflush(stdout);
	return 99;
}

/*
 * A child (child.h's protocol) in which prep(arg) runs (it may exit the
 * child, or print "# " lines), a non-close-on-exec descriptor is opened
 * above 2, and execns(flags, /proc/self/exe, report opts..., envp with
 * REPORT_ENV=report-env) follows.  On failure the child prints "errno N".
 * Returns the wait status (-1 if none); *err gets that errno (0 if none);
 * r gets the level-0 report, r->text all output.  *pid_out: the child's pid.
 */
static inline int spawn_report_prep(int flags, const char *const *opts,
				    void (*prep)(void *), void *arg,
				    struct report *r, int *err, pid_t *pid_out)
{
	struct report_child rc = { flags, { "/proc/self/exe", "report" }, prep, arg };
	static struct child c;
	const char *e;
	int i = 2;

	memset(r, 0, sizeof(*r));
	*err = 0;
	while (opts && *opts && i < 23)
		rc.argv[i++] = (char *)*opts++;
	rc.argv[i] = NULL;
	if (child_start(&c, CHILD_STDOUT, 30, report_child_main, &rc))
		return -1;
	if (pid_out)
		*pid_out = c.pid;
	snprintf(r->text, sizeof(r->text), "%s", c.text);
	e = strstr(r->text, "errno ");
	if (e && (e == r->text || e[-1] == '\n'))
		sscanf(e, "errno %d", err);
	parse_report(r, r->text, 0);
	return c.status;
}

static inline int spawn_report(int flags, const char *const *opts, struct report *r, int *err)
{
	return spawn_report_prep(flags, opts, NULL, NULL, r, err, NULL);
}

/* The "report" mode, for a program's child_mode table. */
#define CHILD_MODE_REPORT	CHILD_MODE("report", 0, report_main)

#endif /* EXECNS_LIB_REPORT_H */
