// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): running COMMAND (growth and record run it), the signals
 * record catches to end it and clean up, and sleeping that a signal cuts
 * short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Signals record took (on_signal()); 0 in the other commands. */
atomic_int nsignals;

/*
 * Hold the signals that end record (and SIGCHLD, with @child) until
 * sigprocmask(SIG_SETMASK, @old): they wait, pending, for a sigsuspend()
 * or ppoll() with @old, which looks at nsignals first.
 */
static void hold_signals(sigset_t *old, bool child)
{
	sigset_t hold;

	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	if (child)
		sigaddset(&hold, SIGCHLD);
	sigprocmask(SIG_BLOCK, &hold, old);
}

/*
 * Sleep @s seconds, or until a signal if @s < 0; false, at once, if
 * nsignals is not (or no longer) @seen.  The signals are held from each
 * look at nsignals to the ppoll() that lets them in: one coming in
 * between is not missed (the sleep would have gone on to its end).
 */
bool sleep_secs(double s, int seen)
{
	double end = now() + s, left;
	struct timespec ts;
	bool slept = true;
	sigset_t old;

	hold_signals(&old, false);
	for (;;) {
		if (nsignals != seen) {
			slept = false;
			break;
		}
		left = end - now();
		if (s >= 0 && left <= 0)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		ppoll(NULL, 0, s < 0 ? NULL : &ts, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return slept;
}

/* Whether a signal came from the terminal (^C, a hang-up): COMMAND got it too. */
atomic_int signal_from_tty, last_signal;

static void on_child(int sig)
{
	(void)sig;
}

/*
 * Run @argv and wait for it; its exit status, or 128 + the signal that
 * killed it, or RUN_FAILED if it could not be run at all (said, with the
 * reason: the child tells it over a close-on-exec pipe).  A signal
 * record took after the @since it had seen is passed on to it, SIGINT
 * as SIGINT and the others as SIGTERM, with a SIGCONT, unless it came
 * from the terminal, which sent it to COMMAND as well (but a hang-up,
 * which the kernel sends the session's leader alone: record, if it
 * leads one); a second one kills it.  The signals are held from before
 * the fork to each sigsuspend(), so that one coming while COMMAND starts
 * is not missed.
 */
int run_command(char **argv, int since)
{
	struct sigaction child = { .sa_handler = on_child }, old_child;
	int first = since, seen = since;
	sigset_t old;
	int status, p[2], err = 0;
	pid_t pid, r;

	if (pipe2(p, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	hold_signals(&old, true);
	sigaction(SIGCHLD, &child, &old_child);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigaction(SIGCHLD, &old_child, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(p[0]);
		out_umask_restore();
		execvp(argv[0], argv);
		err = errno;
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			fprintf(stderr, "%s: cannot run %s: %s\n", prog_name,
				argv[0], strerror(err));
		_exit(127);
	}
	close(p[1]);
	while ((r = waitpid(pid, &status, WNOHANG)) != pid) {
		if (r < 0 && errno != EINTR)
			die("waitpid: %s", strerror(errno));
		if (nsignals == seen) {
			sigsuspend(&old);
			continue;
		}
		if (nsignals - first > 1) {
			kill(pid, SIGKILL);
		} else if (!signal_from_tty ||
			   (last_signal == SIGHUP && getsid(0) == getpid())) {
			kill(pid, last_signal == SIGINT ? SIGINT : SIGTERM);
			/* Stopped (^Z, SIGTTIN), it would not take it. */
			kill(pid, SIGCONT);
		}
		seen = nsignals;
	}
	sigaction(SIGCHLD, &old_child, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* The child is gone: the pipe holds its errno, or nothing if it ran. */
	while (read(p[0], &err, sizeof(err)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (err) {
		note("cannot run %s: %s", argv[0], strerror(err));
		return RUN_FAILED;
	}
	if (WIFSIGNALED(status)) {
		note("%s was killed by signal %d", argv[0], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status))
		note("%s exited with %d", argv[0], WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	last_signal = sig;
	signal_from_tty = si->si_code == SI_KERNEL;
	nsignals++;
}

/* No SA_RESTART: a wait or a sleep returns, and record looks. */
void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
