// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the state for people, and the "help" command, both assembled
 * from the systems' parts (struct slabtrace_system's status, next, help).
 *
 * status (0400) has each system's lines, in the order they load, then
 * what to do next; reading ctl before a print shows the same, after a
 * line saying there is no snapshot yet (slab/dump.c):
 *
 *   slabtrace: 1 cache traced or holding records, 7 records (limit 330170), probes attached
 *   cache kmalloc-64: tracing, traced 1.234s, 7 records, drops: none
 *   kptrace: off
 *   next: echo print kmalloc-64 > ctl; cat ctl (its outstanding objects); echo
 *   help > ctl: the commands, in dmesg                            (one line)
 *
 * Notes on locking
 * ----------------
 * - None here: each system's callbacks take its own mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>

#include <slabtrace/core.h>
#include <slabtrace/files.h>

#include "internal.h"

/* What "help" logs before and after the systems' commands. */
static const char help_head[] = "commands (echo COMMAND > /proc/slabtrace/ctl):";
static const char *const help_tail[] = {
	"  help               these lines",
	"state: cat status; the reason for a failed command is logged here",
	NULL,
};

static void log_lines(const char *const *lines)
{
	for (; *lines; lines++)
		pr_info("%s\n", *lines);
}

/*
 * The "help" command: log the commands of every system.  The whole list
 * or nothing, at most 5 times in 5 s, as a ratelimited line would be: a
 * loop of "help" does not fill the log.
 */
void slabtrace_help(void)
{
	static DEFINE_RATELIMIT_STATE(help_rs, DEFAULT_RATELIMIT_INTERVAL, 5);
	unsigned int i;

	if (!__ratelimit(&help_rs))
		return;
	pr_info("%s\n", help_head);
	for (i = 0; i < slabtrace_nr_systems; i++)
		if (slabtrace_systems[i]->help)
			log_lines(slabtrace_systems[i]->help);
	log_lines(help_tail);
}

/**
 * slabtrace_status_show - the state, for people
 * @m: where
 *
 * Called with no lock held.
 */
void slabtrace_status_show(struct seq_file *m)
{
	const struct slabtrace_system *sys;
	unsigned int i;

	for (i = 0; i < slabtrace_nr_systems; i++) {
		sys = slabtrace_systems[i];
		if (sys->status)
			sys->status(m);
	}
	seq_puts(m, "next: ");
	for (i = 0; i < slabtrace_nr_systems; i++) {
		sys = slabtrace_systems[i];
		if (sys->next && sys->next(m))
			break;
	}
	seq_puts(m, "; echo help > ctl: the commands, in dmesg\n");
}

static int status_show(struct seq_file *m, void *v)
{
	slabtrace_status_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static struct slabtrace_file status_file = {
	.name = "status",
	.mode = 0400,
	.fops = &status_fops,
};

int slabtrace_status_init(void)
{
	return slabtrace_files_add("", &status_file, 1);
}
