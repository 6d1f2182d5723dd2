// SPDX-License-Identifier: GPL-2.0
/*
 * msgwake: message threads wake worker threads through futexes; the
 * wake-up and request latencies, their percentiles and where each woken
 * worker ran (docs/msgwake.md).
 *
 *   msgwake [-m MSG] [-w WORKERS] [-r RPS] [-t SECONDS] [-s WORK_US]
 *
 * Each of MSG message threads owns WORKERS workers, each asleep on a
 * futex of its own until it is given a request. A message thread gives
 * its requests to its idle workers in turn: with -r 0 as fast as it can
 * (a request due when it is given), with -r RPS at RPS requests a second
 * in all (each due on a fixed schedule: one given late, for want of an
 * idle worker or of the message thread's turn on its CPU, counts its
 * lateness; one not given 1 s past the end is dropped, counted). A woken
 * worker spins WORK_US microseconds on the clock, the request's work,
 * then wakes its message thread if it sleeps for want of an idle worker.
 * After SECONDS (at a rate, once the schedule is given) the message
 * threads give no more requests, wait for the last ones and stop their
 * workers.
 *
 * A wake-up's latency is from the clock read just before the message
 * thread's FUTEX_WAKE to the worker's first clock read after its
 * FUTEX_WAIT; a request's, from the time it was due to the worker's clock
 * read after its work. Each is less clock_read_ns, the time between two
 * back-to-back clock reads, the least of 10000. Percentiles are the
 * lower bound of the histogram bucket holding the sample of rank
 * ceil(n x p): exact below 256 ns, above it in buckets 1/128 of their
 * lower bound wide (0.78 %). Counts, the least and the largest are
 * exact, the mean to 0.1 ns.
 *
 * The output is KEY=value lines, format msgwake/1; exit 0, or 1 when a
 * count does not add up or a thread could not be made, 2 on a bad
 * argument.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CACHE_LINE	64
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

typedef unsigned long long u64;

/* The histogram: 1 ns buckets below 256 ns, 128 a power of two above. */
#define HIST_SUB_BITS	7
#define HIST_SUB	128	/* 2^HIST_SUB_BITS */
#define HIST_EXACT	(2 * HIST_SUB)
#define HIST_MAX_EXP	40	/* 2^41 ns, 36 minutes, and more: overflows */
#define HIST_NR		(HIST_EXACT + (HIST_MAX_EXP - HIST_SUB_BITS) * HIST_SUB)

static_assert(HIST_SUB == 2 << (HIST_SUB_BITS - 1), "HIST_SUB is 2^HIST_SUB_BITS");

struct hist {
	u64 n, sum, min, max, over;
	u64 b[HIST_NR];
};

/* A worker's mailbox: idle, idle and asleep on it, a request, the end */
enum { W_IDLE, W_SLEEPING, W_POSTED, W_EXIT };

/* Where a woken worker ran, against its waker's CPU and its own last. */
enum { P_SAME_CPU, P_SAME_LLC, P_OTHER_LLC, P_UNKNOWN, P_MIGRATED, P_NR };

static const char * const place_name[P_NR] = {
	"same_cpu", "same_llc", "other_llc", "unknown", "migrated",
};

struct msg;

struct worker {
	/* Written by the message thread: the worker's mailbox. */
	struct {
		alignas(CACHE_LINE) int state;	/* futex word: W_* */
		int waker_cpu;
		u64 t_post;		/* the wake's clock read, ns */
		u64 t_due;		/* when the request was due, ns */
	} box;
	/* The worker's own, on the next cache line. */
	alignas(CACHE_LINE) struct msg *msg;
	pthread_t tid;
	int last_cpu;
	u64 done, unslept;
	u64 stale;		/* woken by a wake meant for an earlier wait */
	long nvcsw;		/* the kernel's count of its voluntary switches */
	u64 place[P_NR];
	struct hist wake, req;
};

struct msg {
	/* Written by workers: completions, and whether to wake for one. */
	struct {
		alignas(CACHE_LINE) unsigned int done;	/* futex word: completions, wrapping */
		int sleeping;
	} sync;
	alignas(CACHE_LINE) struct worker *w;
	unsigned int nw, next, idx;
	pthread_t tid;
	u64 issued;
	u64 last_give;		/* the last request's clock read, ns */
	struct hist late;
};

static unsigned int opt_msg = 2, opt_workers = 4;
static u64 opt_rps, opt_secs = 5, opt_work_us = 10;

static u64 clock_ns;		/* two back-to-back clock reads apart */
static u64 t_start, t_deadline;
static int *llc_of;		/* a CPU's last-level cache: its first CPU */
static int nr_llc_cpus;

static alignas(CACHE_LINE) int stop;	/* futex word: 1 once stopped */
static int giving;		/* futex word: message threads giving requests */
static int overrun;		/* 1: at a rate, the grace after the end is over */
static int caught;		/* the signal that ended the run, atomic */
static int finished;		/* 1: no more requests given, signals ignored */

/* At a rate, how long after the end a schedule's last requests may come */
#define GRACE_NS	1000000000ULL
static pthread_barrier_t start_line;

static u64 now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long futex(int *uaddr, int op, int val, const struct timespec *ts,
		  unsigned int bits)
{
	return syscall(SYS_futex, uaddr, op | FUTEX_PRIVATE_FLAG, val, ts,
		       NULL, bits);
}

static void futex_wake(int *uaddr, int n)
{
	futex(uaddr, FUTEX_WAKE, n, NULL, 0);
}

static long futex_wait(int *uaddr, int val)
{
	return futex(uaddr, FUTEX_WAIT, val, NULL, 0);
}

/* Sleep until @t (CLOCK_MONOTONIC, ns) or a signal, whichever first. */
static void sleep_until(u64 t)
{
	struct timespec ts = { t / 1000000000ULL, t % 1000000000ULL };

	while (!__atomic_load_n(&caught, __ATOMIC_RELAXED) && now() < t)
		futex(&stop, FUTEX_WAIT_BITSET, 0, &ts, FUTEX_BITSET_MATCH_ANY);
}

static unsigned int hist_idx(u64 v)
{
	unsigned int e;

	if (v < HIST_EXACT)
		return v;
	e = 63 - __builtin_clzll(v);
	return HIST_EXACT + (e - HIST_SUB_BITS - 1) * HIST_SUB +
	       ((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

static u64 hist_lower(unsigned int i)
{
	unsigned int e;

	if (i < HIST_EXACT)
		return i;
	e = (i - HIST_EXACT) / HIST_SUB + HIST_SUB_BITS + 1;
	return (u64)(HIST_SUB + (i - HIST_EXACT) % HIST_SUB) <<
	       (e - HIST_SUB_BITS);
}

/* Add the time from @from to @to, less the clock's own. */
static void hist_add(struct hist *h, u64 from, u64 to)
{
	u64 v = to > from + clock_ns ? to - from - clock_ns : 0;

	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	if (v >> (HIST_MAX_EXP + 1))
		h->over++;
	else
		h->b[hist_idx(v)]++;
}

static void hist_merge(struct hist *to, const struct hist *h)
{
	unsigned int i;

	if (!h->n)
		return;
	if (!to->n || h->min < to->min)
		to->min = h->min;
	if (h->max > to->max)
		to->max = h->max;
	to->n += h->n;
	to->sum += h->sum;
	to->over += h->over;
	for (i = 0; i < HIST_NR; i++)
		to->b[i] += h->b[i];
}

/* The mean of @h to 0.1 ns, rounded down: exact, unlike a double. */
static void print_mean(const char *name, const struct hist *h)
{
	if (h->n)
		printf("%s.mean_ns=%llu.%llu\n", name, h->sum / h->n,
		       h->sum % h->n * 10 / h->n);
}

static void hist_print(const char *name, const struct hist *h)
{
	static const unsigned int pm[] = { 500, 750, 900, 950, 990, 995, 999 };
	unsigned int i, k = 0;
	u64 rank, seen = 0;

	printf("%s.samples=%llu\n", name, h->n);
	printf("%s.overflows=%llu\n", name, h->over);
	if (!h->n)
		return;
	printf("%s.min_ns=%llu\n", name, h->min);
	printf("%s.max_ns=%llu\n", name, h->max);
	print_mean(name, h);
	for (i = 0; i < HIST_NR && k < ARRAY_SIZE(pm); i++) {
		seen += h->b[i];
		for (;;) {
			rank = (h->n * pm[k] + 999) / 1000;
			if (seen < rank)
				break;
			/* 995 is 99.5, 999 99.9: the suite's names */
			printf("%s.p%u_ns=%llu\n", name,
			       pm[k] % 10 ? pm[k] : pm[k] / 10,
			       hist_lower(i));
			if (++k == ARRAY_SIZE(pm))
				break;
		}
	}
}

/* The CPU's last-level cache, as the first CPU that shares it; -1: unknown. */
static int llc(int cpu)
{
	return cpu >= 0 && cpu < nr_llc_cpus ? llc_of[cpu] : -1;
}

/*
 * Each CPU's last-level cache from sysfs: the first CPU of the
 * shared_cpu_list of its cache of the highest level.
 */
/*
 * The first integer of sysfs's cpuCPU/cache/indexINDEX/FILE into @val: 1,
 * or 0 when it holds none, -1 when there is no such file.
 */
static int cache_int(int cpu, int index, const char *file, int *val)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cache/index%d/%s", cpu, index,
		 file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok;
}

static void read_llcs(void)
{
	int cpu, i;

	nr_llc_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (nr_llc_cpus < 1)
		nr_llc_cpus = 0;
	llc_of = calloc(nr_llc_cpus ? nr_llc_cpus : 1, sizeof(*llc_of));
	if (!llc_of) {
		nr_llc_cpus = 0;
		return;
	}
	for (cpu = 0; cpu < nr_llc_cpus; cpu++) {
		int best = -1, id = -1;

		for (i = 0; i < 16; i++) {
			int level, first, r = cache_int(cpu, i, "level", &level);

			if (r < 0)
				break;
			if (!r)
				level = -1;
			if (cache_int(cpu, i, "shared_cpu_list", &first) > 0 &&
			    level > best) {
				best = level;
				id = first;
			}
		}
		llc_of[cpu] = id;
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	u64 work_ns = opt_work_us * 1000, t1, t2;
	int s, cpu, wcpu, slept = 0;
	struct rusage ru;

	pthread_barrier_wait(&start_line);
	for (;;) {
		s = __atomic_load_n(&w->box.state, __ATOMIC_ACQUIRE);
		/* Say it sleeps, so that a request wakes it; then sleep */
		if (s == W_IDLE &&
		    !__atomic_compare_exchange_n(&w->box.state, &s, W_SLEEPING, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		if (s == W_IDLE || s == W_SLEEPING) {
			/* 0: woken; EAGAIN: a request came first, no sleep */
			if (futex_wait(&w->box.state, W_SLEEPING))
				continue;
			/*
			 * Still asleep in its mailbox: the wake was for an
			 * earlier wait, given as the worker took its request
			 * without sleeping.
			 */
			if (__atomic_load_n(&w->box.state, __ATOMIC_ACQUIRE) == W_SLEEPING)
				w->stale++;
			else
				slept = 1;
			continue;
		}
		if (s == W_EXIT)
			break;
		t1 = now();
		cpu = sched_getcpu();
		if (slept)
			hist_add(&w->wake, w->box.t_post, t1);
		else
			w->unslept++;
		slept = 0;
		t2 = t1;
		while (t2 - t1 < work_ns)
			t2 = now();
		hist_add(&w->req, w->box.t_due, t2);
		wcpu = w->box.waker_cpu;
		if (cpu < 0 || wcpu < 0)
			w->place[P_UNKNOWN]++;
		else if (cpu == wcpu)
			w->place[P_SAME_CPU]++;
		else if (llc(cpu) < 0 || llc(wcpu) < 0)
			w->place[P_UNKNOWN]++;
		else
			w->place[llc(cpu) == llc(wcpu) ? P_SAME_LLC : P_OTHER_LLC]++;
		w->place[P_MIGRATED] += w->last_cpu >= 0 && cpu >= 0 && cpu != w->last_cpu;
		w->last_cpu = cpu;
		w->done++;
		__atomic_store_n(&w->box.state, W_IDLE, __ATOMIC_RELEASE);
		/* Dekker with the message thread's sleeping, then done. */
		__atomic_fetch_add(&w->msg->sync.done, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&w->msg->sync.sleeping, __ATOMIC_SEQ_CST))
			futex_wake((int *)&w->msg->sync.done, 1);
	}
	if (!getrusage(RUSAGE_THREAD, &ru))
		w->nvcsw = ru.ru_nvcsw;
	else
		w->nvcsw = -1;
	return NULL;
}

/*
 * Whether the message threads stop giving requests: as fast as possible,
 * at the stop; at a rate, when the schedule ends (every request due
 * before the end is given) or, behind it, GRACE_NS after the end; at a
 * signal.
 */
static int ending(void)
{
	if (__atomic_load_n(&caught, __ATOMIC_RELAXED))
		return 1;
	return opt_rps ? __atomic_load_n(&overrun, __ATOMIC_ACQUIRE) :
			 __atomic_load_n(&stop, __ATOMIC_ACQUIRE);
}

/* Whether a worker is idle, asleep or not. */
static int idle(struct worker *w)
{
	int s = __atomic_load_n(&w->box.state, __ATOMIC_ACQUIRE);

	return s == W_IDLE || s == W_SLEEPING;
}

/* Put @s in @w's mailbox, and wake the worker if it sleeps there. */
static void post(struct worker *w, int s)
{
	if (__atomic_exchange_n(&w->box.state, s, __ATOMIC_ACQ_REL) == W_SLEEPING)
		futex_wake(&w->box.state, 1);
}

/* An idle worker of @m, the next in turn. */
static struct worker *idle_worker(struct msg *m)
{
	unsigned int i, k;

	for (i = 0; i < m->nw; i++) {
		k = (m->next + i) % m->nw;
		if (idle(&m->w[k])) {
			m->next = k + 1;
			return &m->w[k];
		}
	}
	return NULL;
}

/*
 * Wait for an idle worker (@all: for every worker to be idle); NULL once
 * stopped (with @all, never: the last requests are waited for).
 */
static struct worker *wait_worker(struct msg *m, int all)
{
	struct worker *w;
	unsigned int seq, i;

	for (;;) {
		__atomic_store_n(&m->sync.sleeping, 1, __ATOMIC_SEQ_CST);
		seq = __atomic_load_n(&m->sync.done, __ATOMIC_SEQ_CST);
		if (all) {
			for (i = 0; i < m->nw; i++)
				if (!idle(&m->w[i]))
					break;
			w = i == m->nw ? m->w : NULL;
		} else {
			w = idle_worker(m);
		}
		if (w || (!all && ending())) {
			__atomic_store_n(&m->sync.sleeping, 0, __ATOMIC_RELAXED);
			return w;
		}
		futex_wait((int *)&m->sync.done, (int)seq);
	}
}

/*
 * Request @j of the schedule: due at j / rps seconds, to the ns (no
 * period rounded, so no error adds up); message thread i gives requests
 * i, i + MSG, i + 2 x MSG, ... and all of them rps x SECONDS.
 */
static u64 due_at(u64 j)
{
	return t_start + j / opt_rps * 1000000000ULL +
	       j % opt_rps * 1000000000ULL / opt_rps;
}

static void *msg_fn(void *arg)
{
	struct msg *m = arg;
	u64 j = m->idx, due = 0, t0;
	struct worker *w;
	unsigned int i;

	/* The schedule to the ns, not the default 50 us timer slack */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_barrier_wait(&start_line);
	while (!ending()) {
		if (opt_rps) {
			if (j >= opt_rps * opt_secs)
				break;
			due = due_at(j);
			sleep_until(due);
			if (ending())
				break;
		}
		w = idle_worker(m);
		if (!w)
			w = wait_worker(m, 0);
		if (!w)
			break;
		w->box.waker_cpu = sched_getcpu();
		t0 = now();
		if (opt_rps)
			hist_add(&m->late, due, t0);
		else
			due = t0;
		w->box.t_due = due;
		w->box.t_post = t0;
		post(w, W_POSTED);
		m->issued++;
		m->last_give = t0;
		j += opt_msg;
	}
	if (!__atomic_sub_fetch(&giving, 1, __ATOMIC_ACQ_REL))
		futex_wake(&giving, 1);
	wait_worker(m, 1);
	for (i = 0; i < m->nw; i++)
		post(&m->w[i], W_EXIT);
	return NULL;
}

static void on_signal(int sig)
{
	if (__atomic_load_n(&finished, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&caught, sig, __ATOMIC_RELAXED);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	futex_wake(&stop, INT_MAX);
}

static int refuse(const char *why)
{
	fprintf(stderr, "msgwake: %s\n%s\n", why,
		"usage: msgwake [-m MSG 1-1024] [-w WORKERS 1-1024] [-r RPS, 0: as fast as possible] [-t SECONDS 1-86400] [-s WORK_US 0-1000000]");
	return 2;
}

/* @s as an integer from @lo to @hi into @v; 0, or -1 when it is not. */
static int arg_u64(const char *s, u64 lo, u64 hi, u64 *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v < lo || *v > hi ? -1 : 0;
}

static u64 clock_cost(void)
{
	u64 best = ~0ULL, a, b;
	int i;

	for (i = 0; i < 10000; i++) {
		a = now();
		b = now();
		if (b - a < best)
			best = b - a;
	}
	return best;
}

/* Zeroed memory, touched only where used: 4096 workers' histograms. */
static void *zalloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void start(pthread_t *tid, pthread_attr_t *attr, void *(*fn)(void *),
		  void *arg)
{
	int err = pthread_create(tid, attr, fn, arg);

	if (err) {
		fprintf(stderr, "msgwake: cannot make a thread: %s\n", strerror(err));
		_exit(1);
	}
}

/* The message threads out of a wait for an idle worker, to see the end. */
static void kick(struct msg *ms)
{
	unsigned int i;

	for (i = 0; i < opt_msg; i++) {
		__atomic_fetch_add(&ms[i].sync.done, 1, __ATOMIC_SEQ_CST);
		futex_wake((int *)&ms[i].sync.done, INT_MAX);
	}
}

int main(int argc, char **argv)
{
	struct hist *wake, *req, *late;
	u64 v, issued = 0, unslept = 0, stale = 0, done = 0, t_end = 0;
	u64 place[P_NR] = { 0 };
	struct timespec ts;
	struct sigaction sa;
	pthread_attr_t attr;
	struct worker *ws;
	struct msg *ms;
	unsigned int i, j, nw;
	long nvcsw = 0;
	char why[96];
	int c, bad = 0;

	opterr = 0;
	while ((c = getopt(argc, argv, ":m:w:r:t:s:")) != -1) {
		snprintf(why, sizeof(why), "-%c '%s' is out of range", c,
			 optarg ? optarg : "");
		switch (c) {
		case 'm':
			if (arg_u64(optarg, 1, 1024, &v))
				return refuse(why);
			opt_msg = v;
			break;
		case 'w':
			if (arg_u64(optarg, 1, 1024, &v))
				return refuse(why);
			opt_workers = v;
			break;
		case 'r':
			if (arg_u64(optarg, 0, 100000000, &opt_rps))
				return refuse(why);
			break;
		case 't':
			if (arg_u64(optarg, 1, 86400, &opt_secs))
				return refuse(why);
			break;
		case 's':
			if (arg_u64(optarg, 0, 1000000, &opt_work_us))
				return refuse(why);
			break;
		case ':':
			snprintf(why, sizeof(why), "-%c needs a value", optopt);
			return refuse(why);
		default:
			snprintf(why, sizeof(why), "no option -%c", optopt);
			return refuse(why);
		}
	}
	if (optind != argc)
		return refuse("no arguments beside the options");
	nw = opt_msg * opt_workers;
	if (nw > 4096)
		return refuse("-m x -w is above 4096 workers");

	clock_ns = clock_cost();
	read_llcs();
	ms = zalloc(sizeof(*ms) * opt_msg);
	ws = zalloc(sizeof(*ws) * nw);
	wake = zalloc(sizeof(*wake) * 3);
	if (!ms || !ws || !wake) {
		fputs("msgwake: out of memory\n", stderr);
		return 1;
	}
	req = wake + 1;
	late = wake + 2;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Small stacks: 4096 workers in 1 GiB of address space */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	pthread_barrier_init(&start_line, NULL, nw + opt_msg + 1);
	giving = opt_msg;
	for (i = 0; i < opt_msg; i++) {
		ms[i].w = ws + i * opt_workers;
		ms[i].nw = opt_workers;
		ms[i].idx = i;
		for (j = 0; j < opt_workers; j++) {
			ms[i].w[j].msg = &ms[i];
			ms[i].w[j].last_cpu = -1;
			start(&ms[i].w[j].tid, &attr, worker_fn, &ms[i].w[j]);
		}
		start(&ms[i].tid, &attr, msg_fn, &ms[i]);
	}
	t_start = now();
	t_deadline = t_start + opt_secs * 1000000000ULL;
	pthread_barrier_wait(&start_line);
	sleep_until(t_deadline);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	t_end = now();
	futex_wake(&stop, INT_MAX);
	kick(ms);
	/* At a rate, the schedule's last requests; GRACE_NS at most */
	ts.tv_sec = (t_deadline + GRACE_NS) / 1000000000ULL;
	ts.tv_nsec = (t_deadline + GRACE_NS) % 1000000000ULL;
	while ((v = __atomic_load_n(&giving, __ATOMIC_ACQUIRE)) &&
	       !__atomic_load_n(&caught, __ATOMIC_RELAXED) &&
	       now() < t_deadline + GRACE_NS)
		futex(&giving, FUTEX_WAIT_BITSET, v, &ts, FUTEX_BITSET_MATCH_ANY);
	__atomic_store_n(&overrun, 1, __ATOMIC_RELEASE);
	kick(ms);
	/* at a rate, the end is the schedule's, or its last request's */
	if (opt_rps)
		t_end = t_deadline;
	for (i = 0; i < opt_msg; i++) {
		pthread_join(ms[i].tid, NULL);
		issued += ms[i].issued;
		hist_merge(late, &ms[i].late);
		if (opt_rps && ms[i].last_give > t_end)
			t_end = ms[i].last_give;
	}
	__atomic_store_n(&finished, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nw; i++) {
		pthread_join(ws[i].tid, NULL);
		done += ws[i].done;
		unslept += ws[i].unslept;
		stale += ws[i].stale;
		nvcsw = nvcsw < 0 || ws[i].nvcsw < 0 ? -1 : nvcsw + ws[i].nvcsw;
		for (j = 0; j < P_NR; j++)
			place[j] += ws[i].place[j];
		hist_merge(wake, &ws[i].wake);
		hist_merge(req, &ws[i].req);
	}

	printf("format=msgwake/1\n");
	printf("msg_threads=%u\nworkers=%u\nrps=%llu\nduration_s=%llu\nwork_us=%llu\n",
	       opt_msg, nw, opt_rps, opt_secs, opt_work_us);
	printf("interrupted=%d\n", __atomic_load_n(&caught, __ATOMIC_RELAXED));
	printf("elapsed_ns=%llu\n", t_end - t_start);
	printf("clock_read_ns=%llu\n", clock_ns);
	if (opt_rps) {
		printf("requests_scheduled=%llu\n", opt_rps * opt_secs);
		printf("requests_dropped=%llu\n", opt_rps * opt_secs - issued);
	}
	printf("requests=%llu\n", issued);
	printf("requests_done=%llu\n", done);
	printf("requests_unslept=%llu\n", unslept);
	printf("wakes_stale=%llu\n", stale);
	printf("workers_nvcsw=%ld\n", nvcsw);
	hist_print("wake", wake);
	hist_print("req", req);
	if (opt_rps)
		hist_print("late", late);
	for (j = 0; j < P_NR; j++)
		printf("place.%s=%llu\n", place_name[j], place[j]);
	if (done != issued || wake->n + unslept != issued || req->n != issued ||
	    (opt_rps && late->n != issued) ||
	    place[P_SAME_CPU] + place[P_SAME_LLC] + place[P_OTHER_LLC] +
	    place[P_UNKNOWN] != issued) {
		fputs("msgwake: the counts do not add up\n", stderr);
		bad = 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		perror("msgwake: stdout");
		bad = 1;
	}
	return bad;
}
