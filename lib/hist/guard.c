/* SPDX-License-Identifier: MIT */
/*
 * Writes into a caller's buffer that the program may have unmapped or made
 * read-only meanwhile: the write runs under a guard, and a SIGSEGV or
 * SIGBUS it takes on an address the guard claims returns -EFAULT from the
 * guard instead of killing the process (Solaris profil(2): "Profiling is
 * turned off if a buff update would cause a memory fault"). Every other
 * fault, and every signal sent with kill(), goes on to the program's own
 * disposition as if hwprof's handler were not there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"

struct guard {
	sigjmp_buf jb;
	hwp_owns_fn owns;
	const void *ctx;
	uintptr_t addr;	    /* the faulting address, set by the handler */
	struct guard *prev; /* a guard on this thread further out */
};

/* The innermost guard of this thread; read by the handler only while some
 * guard is running somewhere (active), so a fault of the program's never
 * makes a thread that never folded touch its TLS. */
static __thread struct guard *cur;
static int active;

/* What the program had installed under ours: called for what is not ours.
 * Written under hwp_guard_arm()'s lock before ours goes in. */
static struct sigaction next_segv, next_bus;
static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_fault(int sig, siginfo_t *si, void *uc);

static int is_ours(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == on_fault;
}

/* The program's disposition, as the kernel would have applied it. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *n = sig == SIGSEGV ? &next_segv : &next_bus;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t old;

	if (!(n->sa_flags & SA_SIGINFO) && n->sa_handler == SIG_IGN && si->si_code <= 0)
		return; /* sent by kill() and ignored */
	if (!(n->sa_flags & SA_SIGINFO) &&
	    (n->sa_handler == SIG_DFL || n->sa_handler == SIG_IGN)) {
		/* the default action: a fault happens again when the
		 * instruction is retried, a sent signal is sent again (it is
		 * blocked until this handler returns) */
		sigaction(sig, &dfl, NULL);
		if (si->si_code <= 0)
			raise(sig);
		return;
	}
	pthread_sigmask(SIG_BLOCK, &n->sa_mask, &old);
	if (n->sa_flags & SA_SIGINFO) {
		void (*fn)(int, siginfo_t *, void *) = n->sa_sigaction;

		if (n->sa_flags & SA_RESETHAND)
			sigaction(sig, &dfl, NULL);
		fn(sig, si, uc);
	} else {
		void (*fn)(int) = n->sa_handler;

		if (n->sa_flags & SA_RESETHAND)
			sigaction(sig, &dfl, NULL);
		fn(sig);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	/* si_code > 0: raised by the kernel for this thread's own access */
	if (__atomic_load_n(&active, __ATOMIC_ACQUIRE) && si->si_code > 0) {
		struct guard *g = cur;

		if (g && g->owns(g->ctx, (uintptr_t)si->si_addr)) {
			g->addr = (uintptr_t)si->si_addr;
			siglongjmp(g->jb, 1);
		}
	}
	errno = saved;
	chain(sig, si, uc);
}

static int arm_one(int sig, struct sigaction *next)
{
	struct sigaction now, old,
		ours = {
			.sa_sigaction = on_fault,
			/* ONSTACK: a program that handles stack overflow on an
			 * alternate stack must still get there */
			.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART,
		};

	if (sigaction(sig, NULL, &now))
		return -errno;
	if (is_ours(&now))
		return 0;
	sigemptyset(&ours.sa_mask);
	*next = now;
	if (sigaction(sig, &ours, &old))
		return -errno;
	if (!is_ours(&old))
		*next = old; /* the program changed it in between */
	/* a sanitizer may keep its own handler and say nothing */
	if (sigaction(sig, NULL, &now) || !is_ours(&now))
		return -ENOSYS;
	return 0;
}

/*
 * Makes sure hwprof's handler is in front of SIGSEGV and SIGBUS, the
 * program's own (installed before or since) kept behind it. One
 * sigaction() query per signal when nothing changed. 0, or -ENOSYS when
 * the handler would not stay (then guards catch nothing).
 */
int hwp_guard_arm(void)
{
	int ret;

	pthread_mutex_lock(&arm_lock);
	ret = arm_one(SIGSEGV, &next_segv);
	if (!ret)
		ret = arm_one(SIGBUS, &next_bus);
	pthread_mutex_unlock(&arm_lock);
	return ret;
}

/*
 * Runs fn(arg); a fault it takes on an address owns(ctx, addr) claims ends
 * it there: -EFAULT and *addr. fn must hold no lock and own no memory it
 * has not handed back when it writes there. The thread must not block
 * SIGSEGV and SIGBUS (the kernel kills a thread that faults with them
 * blocked). May run in a signal handler.
 */
int hwp_guard_run(void (*fn)(void *), void *arg, hwp_owns_fn owns, const void *ctx,
		  uintptr_t *addr)
{
	struct guard g = { .owns = owns, .ctx = ctx, .prev = cur };

	if (sigsetjmp(g.jb, 0)) {
		sigset_t un;

		cur = g.prev;
		__atomic_fetch_sub(&active, 1, __ATOMIC_RELEASE);
		/* the handler left with its own signal blocked */
		sigemptyset(&un);
		sigaddset(&un, SIGSEGV);
		sigaddset(&un, SIGBUS);
		pthread_sigmask(SIG_UNBLOCK, &un, NULL);
		if (addr)
			*addr = g.addr;
		return -EFAULT;
	}
	cur = &g;
	__atomic_fetch_add(&active, 1, __ATOMIC_ACQ_REL);
	fn(arg);
	__atomic_fetch_sub(&active, 1, __ATOMIC_RELEASE);
	cur = g.prev;
	return 0;
}

/*
 * hwp_guard_run() with the handler checked first, for writes made now and
 * then (not per sample): where it cannot be installed, [base, base + len)
 * is checked against the maps first. Not in a signal handler.
 */
int hwp_guard_write(void (*fn)(void *), void *arg, hwp_owns_fn owns, const void *ctx,
		    void *base, size_t len, uintptr_t *addr)
{
	if (hwp_guard_arm() && !hwp_user_writable(base, len)) {
		if (addr)
			*addr = 0;
		return -EFAULT;
	}
	return hwp_guard_run(fn, arg, owns, ctx, addr);
}

/*
 * The one line on stderr that says a buffer stopped being written: api
 * names the call that gave it, what the buffer. write(2), not stdio: no
 * lock, and safe in a signal handler. Also sent to the log callback when
 * not in a handler (in_handler 0).
 */
void hwp_guard_say(const char *api, const char *what, uintptr_t addr, int in_handler)
{
	char line[320];
	int n;

	if (addr)
		n = snprintf(line, sizeof(line),
			     "hwprof: %s: %s is no longer writable (fault at %#lx: unmapped or read-only); profiling into it stopped\n",
			     api, what, (unsigned long)addr);
	else
		n = snprintf(line, sizeof(line),
			     "hwprof: %s: %s is no longer writable (unmapped or read-only); profiling into it stopped\n",
			     api, what);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere to say it */
	}
	if (!in_handler) {
		line[n - 1] = '\0';
		hwp_log(HWPROF_LOG_WARN, "%s", line);
	}
}
