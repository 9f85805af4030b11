/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's command side, shared by its steps: record.c (the options
 * and the run's flow: target, launch, loop, finish), rec-events.c (the -e
 * names and their periods), rec-launch.c (signals, the command's fork and
 * exec, the attach to a running process) and rec-write.c (the output
 * file's name and its atomic writes).
 */
#ifndef HWPROF_TOOLS_REC_CMD_H
#define HWPROF_TOOLS_REC_CMD_H

#include <stdint.h>
#include <sys/types.h>

#include "outfile.h"
#include "rec.h"

#define REC_DEFAULT_HZ	   1000
#define REC_MAX_RING_PAGES (1u << 20) /* -m: 4 GiB rings of 4 KiB pages */

/* The command line. */
struct rec_opts {
	const char *ev[REC_MAX_EVENTS];
	int nev;
	uint64_t count; /* -c, 0: none */
	uint64_t hz;	/* -F, 0: none */
	const char *out;
	pid_t pid; /* -p, 0: none */
	unsigned int checkpoint;
	unsigned int ring_pages; /* -m, 0: none */
	int callgraph;		 /* -g, --call-graph: HD_CG_*, 0: none */
	uint32_t stack_size;	 /* --call-graph dwarf,SIZE */
	int noleaf;		 /* --call-graph fp,noleaf */
	int quiet;
	int verbose;	       /* -v: what the name cache did */
	long delay;	       /* --delay MS: 0 none, -1 off until --control enables */
	const char *ctl, *ack; /* --control fifo:CTL[,ACK] */
	char **cmd;
};

/* The output file: written to a temp file beside it, then renamed
 * (lib/profile/outfile.h). */
struct rec_out {
	struct hwp_out f; /* open during a write only */
	const char *name; /* -o, % expanded */
	dev_t dev;	  /* its directory, as checked before the run */
	ino_t ino;
};

struct rec_bp { /* a mem:FUNC:x of a PIE: placed after the exec */
	int ev;
	uint64_t off;
};

/* One run of hwprof record, from the options to the exit status. */
struct rec_run {
	struct rec_opts op;
	struct rec *r;
	struct rec_out out;
	struct rec_bp bps[REC_MAX_EVENTS];
	int nbp;
	char *file;			 /* the program's file */
	char *outname;			 /* -o with its % expanded */
	pid_t pid;			 /* the command, or the attached process */
	int go[2];			 /* the command waits on go[0] for the events */
	int ex[2];			 /* a failed exec says its errno on ex[1] */
	int reaped;			 /* the command was waited for */
	int st;				 /* its wait status, -1 before */
	int stopping;			 /* the first stop signal record got, or 0 */
	size_t ncovered[REC_MAX_EVENTS]; /* each event's fds at the end */
	unsigned int ring_pages;	 /* the rings' data pages at the end */
	int ctl_fd, ack_fd;		 /* --control's FIFOs, or -1 */
	char ctl_buf[256];		 /* a command line read in part */
	size_t ctl_len;
	int ctl_skip; /* dropping a line too long, to its newline */
	uint64_t t0;  /* ms: when the command runs (after its exec) */
	char why[512];
};

/* rec-mpi.c: under an MPI launcher (the file has a rank), libhwprof-mpi
 * preloaded into the command to time its MPI calls (0, or the exit status
 * after one line); its times folded into run->r->d once the command has
 * ended; the private directory removed when record gives up first. */
int rec_mpi_setup(struct rec_run *run);
void rec_mpi_fold(struct rec_run *run);
void rec_mpi_drop(void);

/* rec-events.c: resolves every -e name and period into run->r, with the
 * line that says what each records. 0, or the exit status after one line. */
int rec_events_setup(struct rec_run *run);
/* The kernel's perf_event_max_sample_rate */
long rec_max_rate(void);

/* rec-launch.c */
int rec_signals_install(void);
/* the read end of the self-pipe the handlers write (signal, from_tty) to */
int rec_signals_fd(void);
/* -p: the process to attach to (a thread's process, said), its program
 * file; 0, or the exit status after one line. */
int rec_attach_target(struct rec_run *run);
/* -p: the events on every thread, the maps before the attach. */
int rec_attach(struct rec_run *run);
/* the command's file as execvp would find it; 0 or the exit status */
int rec_command_target(struct rec_run *run);
/* Forks the command, opens the events on it, lets it exec: 0, or the
 * exit status after one line (127: the exec failed). */
int rec_launch(struct rec_run *run);
/* A command that was forked and not waited for yet is ended (before its
 * exec: it never runs) and reaped. */
void rec_launch_abort(struct rec_run *run);
/* The load address of file in process pid. */
int rec_load_base(pid_t pid, const char *file, uint64_t *base);

/* rec-write.c */
/* The output's name (-o's %r %h %p, an MPI rank's default), the rank,
 * host and program in the file; checks -o. 0, or the exit status. */
int rec_out_setup(struct rec_run *run);
/* rec_out_write(): the directory at -o's path is not the one checked
 * before the run (moved or replaced since): nothing written. */
#define REC_OUT_MOVED 1
/* Writes the data file: 0, REC_OUT_MOVED or -errno. */
int rec_out_write(struct rec_out *o, const struct hd_file *d);
/* What rec_out_write()'s r says, for a line after -o's name. */
const char *rec_out_strerror(int r);
void rec_out_free(struct rec_out *o);

#endif
