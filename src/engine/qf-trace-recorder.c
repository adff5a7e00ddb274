/* qf-trace-recorder.c — reads a trace instance, keeping the events around the worst spikes
 * (src/engine); see qf-trace-recorder.h.
 *
 * Data flow: page → parser → emit() appends to the CPU's ring and, for a mark, queues a pending
 * spike → settle() once every CPU was read past the mark: capture() copies the window out of the
 * rings when the spike is among those kept, prune() frees the ones that no longer are.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-trace-recorder.h"

#define DEFAULT_N_WORST        8
#define DEFAULT_WINDOW_BYTES   (32 * 1024 * 1024)
#define DEFAULT_SPIKE_EVENTS   8192
#define DEFAULT_LOOKBACK_NS    (2 * QF_NSEC_PER_MSEC)
#define DEFAULT_POLL_NS        (50 * QF_NSEC_PER_MSEC)
#define MIN_RING_EVENTS        4096u
#define MAX_RING_EVENTS        (1u << 16)
#define COMM_CACHE             4096u          /* pids, direct-mapped */
#define SETTLE_MARGIN_NS       (2 * QF_NSEC_PER_MSEC)
#define MAX_PAGES_PER_ROUND    8192
#define BUSY_PAGES             128
#define WAKE_SLACK_NS          (100 * QF_NSEC_PER_USEC)  /* a timer of SCHED_OTHER may fire late by its slack */

typedef struct
{
  QfTraceEvent *ev;
  guint         mask;          /* capacity - 1 (a power of two) */
  guint64       written;       /* events ever appended */
  gint64        lost_at_ns;    /* the first event after the latest loss, or G_MININT64 */
} Ring;

typedef struct
{
  gint32 tid;
  guint  cpu;
  gint64 start_ns, latency_ns, mark_ns;
} Pending;

struct QfTraceRecorder
{
  QfTraceRecorderConfig config;
  QfTraceFormats       *formats;
  const QfTraceFds     *fds;
  guint                 n_cpus;
  Ring                 *rings;
  guint8               *page;
  GArray               *pending;          /* Pending */
  GPtrArray            *spikes;           /* QfTraceSpike*, worst first */
  QfTraceTask          *comms;            /* COMM_CACHE entries, by pid % COMM_CACHE */
  QfTraceStats          stats;
  pthread_t             thread;
  gboolean              started;
  atomic_int            stop;
};

static guint
floor_pow2 (gsize v)
{
  guint p = 1;

  while ((gsize) p * 2 <= v && p < MAX_RING_EVENTS)
    p *= 2;
  return p;
}

static QfTraceRecorder *
recorder_alloc (QfTraceFormats              *formats,
                guint                        n_cpus,
                const QfTraceRecorderConfig *config)
{
  QfTraceRecorder *self = g_new0 (QfTraceRecorder, 1);
  QfTraceRecorderConfig *c = &self->config;
  guint ring_events;

  if (config != NULL)
    *c = *config;
  c->avoid_cpus = config != NULL && config->n_avoid_cpus > 0
                    ? g_memdup2 (config->avoid_cpus, sizeof (int) * config->n_avoid_cpus) : NULL;
  c->n_avoid_cpus = c->avoid_cpus != NULL ? config->n_avoid_cpus : 0;
  c->n_worst = c->n_worst ? c->n_worst : DEFAULT_N_WORST;
  c->window_bytes = c->window_bytes ? c->window_bytes : DEFAULT_WINDOW_BYTES;
  c->max_spike_events = c->max_spike_events ? c->max_spike_events : DEFAULT_SPIKE_EVENTS;
  c->lookback_ns = c->lookback_ns > 0 ? c->lookback_ns : DEFAULT_LOOKBACK_NS;
  c->poll_ns = c->poll_ns > 0 ? c->poll_ns : DEFAULT_POLL_NS;

  self->formats = formats;
  self->n_cpus = MAX (n_cpus, 1);
  ring_events = MAX (floor_pow2 (c->window_bytes / sizeof (QfTraceEvent) / self->n_cpus),
                     MIN_RING_EVENTS);
  self->rings = g_new0 (Ring, self->n_cpus);
  for (guint i = 0; i < self->n_cpus; i++)
    {
      self->rings[i].ev = g_new0 (QfTraceEvent, ring_events);
      self->rings[i].mask = ring_events - 1;
      self->rings[i].lost_at_ns = G_MININT64;
    }
  self->page = g_malloc0 (qf_trace_formats_page_size (formats));
  self->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  self->spikes = g_ptr_array_new ();
  self->comms = g_new0 (QfTraceTask, COMM_CACHE);
  for (guint i = 0; i < COMM_CACHE; i++)
    self->comms[i].pid = -1;
  atomic_init (&self->stop, 0);

  self->stats.window_events = ring_events;
  self->stats.n_worst = c->n_worst;
  self->stats.max_spike_events = c->max_spike_events;
  self->stats.lookback_ns = c->lookback_ns;
  self->stats.poll_ns = c->poll_ns;
  self->stats.memory_bytes = sizeof (QfTraceEvent) * ((gsize) ring_events * self->n_cpus
                               + (gsize) c->max_spike_events * (c->n_worst + self->n_cpus + 1));
  return self;
}

QfTraceRecorder *
qf_trace_recorder_new (const QfTraceFds             *fds,
                       const QfTraceRecorderConfig  *config,
                       GError                      **error)
{
  QfTraceFormats *formats;
  QfTraceRecorder *self;

  g_return_val_if_fail (fds != NULL, NULL);
  formats = qf_trace_formats_read (fds, error);
  if (formats == NULL)
    return NULL;
  self = recorder_alloc (formats, fds->n_cpus, config);
  self->fds = fds;
  return self;
}

QfTraceRecorder *
qf_trace_recorder_new_for_pages (QfTraceFormats              *formats,
                                 guint                        n_cpus,
                                 const QfTraceRecorderConfig *config)
{
  g_return_val_if_fail (formats != NULL, NULL);
  return recorder_alloc (formats, n_cpus, config);
}

static void
spike_free (QfTraceSpike *spike)
{
  if (spike == NULL)
    return;
  g_free (spike->events);
  g_free (spike->tasks);
  g_free (spike);
}

void
qf_trace_recorder_free (QfTraceRecorder *self)
{
  if (self == NULL)
    return;
  if (self->started)
    qf_trace_recorder_stop (self);
  for (guint i = 0; i < self->n_cpus; i++)
    g_free (self->rings[i].ev);
  g_free (self->rings);
  g_free (self->page);
  g_array_unref (self->pending);
  g_ptr_array_foreach (self->spikes, (GFunc) spike_free, NULL);
  g_ptr_array_unref (self->spikes);
  g_free (self->comms);
  g_free ((gpointer) self->config.avoid_cpus);
  qf_trace_formats_free (self->formats);
  g_free (self);
}

static void
remember_comm (QfTraceRecorder *self,
               gint32           pid,
               gint32           prio,
               const char      *comm)
{
  QfTraceTask *t;

  if (pid < 0)
    return;
  t = &self->comms[(guint) pid % COMM_CACHE];
  t->pid = pid;
  t->prio = prio;
  memcpy (t->comm, comm, QF_TRACE_COMM_LEN);
  t->comm[QF_TRACE_COMM_LEN - 1] = '\0';
}

/* The parser's callback: the event into its CPU's ring. */
static void
emit (const QfTraceEvent *ev,
      gpointer            user_data)
{
  QfTraceRecorder *self = user_data;
  Ring *ring;

  if (ev->cpu >= self->n_cpus)
    return;
  ring = &self->rings[ev->cpu];
  ring->ev[ring->written & ring->mask] = *ev;
  ring->written++;
  self->stats.events++;
  switch (ev->kind)
    {
    case QF_TRACE_EV_SWITCH:
      remember_comm (self, ev->sw.prev_pid, ev->sw.prev_prio, ev->sw.prev_comm);
      remember_comm (self, ev->sw.next_pid, ev->sw.next_prio, ev->sw.next_comm);
      break;
    case QF_TRACE_EV_WAKING:
    case QF_TRACE_EV_WAKEUP:
      remember_comm (self, ev->wake.pid, ev->wake.prio, ev->wake.comm);
      break;
    case QF_TRACE_EV_MARK:
      {
        Pending p = { ev->pid, ev->cpu, ev->mark.start_ns, ev->mark.latency_ns, ev->ts_ns };
        g_array_append_val (self->pending, p);
        self->stats.marks++;
      }
      break;
    default:
      break;
    }
}

void
qf_trace_recorder_feed_page (QfTraceRecorder *self,
                             guint            cpu,
                             const guint8    *page,
                             gsize            len)
{
  guint64 lost = 0;
  guint64 before;

  g_return_if_fail (self != NULL);
  if (cpu >= self->n_cpus)
    return;
  before = self->rings[cpu].written;
  self->stats.pages++;
  self->stats.bytes += len;
  if (!qf_trace_parse_page (self->formats, cpu, page, len, emit, self, &lost))
    self->stats.bad_pages++;
  if (lost != 0)
    {
      Ring *ring = &self->rings[cpu];

      self->stats.lost += lost == G_MAXUINT64 ? 1 : lost;
      /* the loss happened before this page's first event */
      ring->lost_at_ns = ring->written > before ? ring->ev[before & ring->mask].ts_ns
                                                : G_MAXINT64;
    }
}

/* Copies ring's events with from ≤ ts ≤ to into out (appending); sets *incomplete when the
 * window's start is no longer in the ring or events were lost inside it. */
static void
copy_window (const Ring *ring,
             gint64      from,
             gint64      to,
             GArray     *out,
             gboolean   *incomplete)
{
  guint64 capacity = (guint64) ring->mask + 1;
  guint64 oldest = ring->written > capacity ? ring->written - capacity : 0;
  guint64 first = ring->written;

  while (first > oldest && ring->ev[(first - 1) & ring->mask].ts_ns >= from)
    first--;
  if (first == oldest && oldest > 0)
    *incomplete = TRUE;
  if (ring->lost_at_ns != G_MININT64 && ring->lost_at_ns >= from && ring->lost_at_ns <= to)
    *incomplete = TRUE;
  for (guint64 i = first; i < ring->written; i++)
    {
      const QfTraceEvent *ev = &ring->ev[i & ring->mask];
      if (ev->ts_ns > to)
        break;
      g_array_append_vals (out, ev, 1);
    }
}

/* The CPU whose event woke tid last in [from, to], or -1 (also when that was cpu itself). */
static gint
waking_cpu (QfTraceRecorder *self,
            const Pending   *p,
            gint64           from)
{
  gint best_cpu = -1;
  gint64 best_ts = G_MININT64;

  for (guint c = 0; c < self->n_cpus; c++)
    {
      const Ring *ring = &self->rings[c];
      guint64 capacity = (guint64) ring->mask + 1;
      guint64 oldest = ring->written > capacity ? ring->written - capacity : 0;

      for (guint64 i = ring->written; i > oldest; i--)
        {
          const QfTraceEvent *ev = &ring->ev[(i - 1) & ring->mask];

          if (ev->ts_ns < from)
            break;
          if (ev->ts_ns <= p->mark_ns && ev->kind == QF_TRACE_EV_WAKING && ev->wake.pid == p->tid
              && ev->ts_ns > best_ts)
            {
              best_ts = ev->ts_ns;
              best_cpu = (gint) c;
              break;
            }
        }
    }
  return best_cpu == (gint) p->cpu ? -1 : best_cpu;
}

static gint
compare_events (gconstpointer a,
                gconstpointer b)
{
  const QfTraceEvent *x = a, *y = b;

  if (x->ts_ns != y->ts_ns)
    return x->ts_ns < y->ts_ns ? -1 : 1;
  return (gint) x->cpu - (gint) y->cpu;
}

/* The named tasks of the spike's events, from the events themselves and the pid cache. */
static void
name_tasks (QfTraceRecorder *self,
            QfTraceSpike    *spike)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  GArray *tasks = g_array_new (FALSE, TRUE, sizeof (QfTraceTask));

  for (guint i = 0; i < spike->n_events; i++)
    {
      gint32 pid = spike->events[i].pid;
      const QfTraceTask *cached = &self->comms[(guint) MAX (pid, 0) % COMM_CACHE];
      QfTraceTask t = { pid, -1, "" };

      if (pid <= 0 || g_hash_table_contains (seen, GINT_TO_POINTER (pid)))
        continue;
      g_hash_table_add (seen, GINT_TO_POINTER (pid));
      if (cached->pid == pid)
        t = *cached;
      g_array_append_val (tasks, t);
    }
  spike->n_tasks = tasks->len;
  spike->tasks = (QfTraceTask *) g_array_free (tasks, FALSE);
}

/* Copies the spike's window out of the rings. */
static QfTraceSpike *
capture (QfTraceRecorder *self,
         const Pending   *p)
{
  QfTraceSpike *spike = g_new0 (QfTraceSpike, 1);
  GArray *events = g_array_new (FALSE, FALSE, sizeof (QfTraceEvent));
  gint64 from = p->start_ns - self->config.lookback_ns;
  gint other;

  spike->tid = p->tid;
  spike->cpu = p->cpu;
  spike->start_ns = p->start_ns;
  spike->latency_ns = p->latency_ns;
  spike->mark_ns = p->mark_ns;
  copy_window (&self->rings[p->cpu], from, p->mark_ns, events, &spike->incomplete);
  other = waking_cpu (self, p, p->start_ns - WAKE_SLACK_NS);
  if (other >= 0)
    {
      copy_window (&self->rings[other], from, p->mark_ns, events, &spike->incomplete);
      g_array_sort (events, compare_events);
    }
  if (events->len > self->config.max_spike_events)
    {
      guint cut = events->len - self->config.max_spike_events;

      if (g_array_index (events, QfTraceEvent, cut).ts_ns > p->start_ns)
        spike->incomplete = TRUE;
      g_array_remove_range (events, 0, cut);
    }
  spike->n_events = events->len;
  spike->events = (QfTraceEvent *) g_array_free (events, FALSE);
  name_tasks (self, spike);
  return spike;
}

/* Whether a spike of this latency on cpu would be kept: among the n_worst worst, or the worst
 * of its CPU. */
static gboolean
worth_keeping (QfTraceRecorder *self,
               const Pending   *p)
{
  guint rank = 0;
  gboolean cpu_has_worse = FALSE;

  for (guint i = 0; i < self->spikes->len; i++)
    {
      const QfTraceSpike *s = g_ptr_array_index (self->spikes, i);

      if (s->cpu == p->cpu && s->tid == p->tid && s->start_ns == p->start_ns)
        return FALSE;                    /* the same mark twice */
      if (s->latency_ns >= p->latency_ns)
        {
          rank++;
          cpu_has_worse |= s->cpu == p->cpu;
        }
    }
  return rank < self->config.n_worst || !cpu_has_worse;
}

static gint
compare_spikes (gconstpointer a,
                gconstpointer b)
{
  const QfTraceSpike *x = *(QfTraceSpike *const *) a, *y = *(QfTraceSpike *const *) b;

  return x->latency_ns > y->latency_ns ? -1 : x->latency_ns < y->latency_ns ? 1 : 0;
}

/* Keeps the n_worst worst spikes and each CPU's worst; frees the rest. */
static void
prune (QfTraceRecorder *self)
{
  g_autoptr(GHashTable) cpu_has = g_hash_table_new (NULL, NULL);
  guint kept = 0;

  g_ptr_array_sort (self->spikes, compare_spikes);
  for (guint i = 0; i < self->spikes->len;)
    {
      QfTraceSpike *s = g_ptr_array_index (self->spikes, i);
      gboolean first_of_cpu = !g_hash_table_contains (cpu_has, GUINT_TO_POINTER (s->cpu + 1));

      g_hash_table_add (cpu_has, GUINT_TO_POINTER (s->cpu + 1));
      if (kept < self->config.n_worst || first_of_cpu)
        {
          kept++;
          i++;
          continue;
        }
      spike_free (s);
      g_ptr_array_remove_index (self->spikes, i);
    }
}

/* Settles the marks recorded before until_ns: every CPU has been read past them. */
static void
settle (QfTraceRecorder *self,
        gint64           until_ns)
{
  guint i = 0;

  while (i < self->pending->len)
    {
      Pending p = g_array_index (self->pending, Pending, i);

      if (p.mark_ns >= until_ns)
        {
          i++;
          continue;
        }
      g_array_remove_index (self->pending, i);
      if (p.cpu >= self->n_cpus || !worth_keeping (self, &p))
        continue;
      g_ptr_array_add (self->spikes, capture (self, &p));
      prune (self);
    }
}

void
qf_trace_recorder_flush (QfTraceRecorder *self)
{
  g_return_if_fail (self != NULL);
  settle (self, G_MAXINT64);
}

/* Reads every CPU until its buffer is empty (at most MAX_PAGES_PER_ROUND pages each). Returns
 * the most pages one CPU had. */
static guint
read_round (QfTraceRecorder *self)
{
  gsize page_size = qf_trace_formats_page_size (self->formats);
  guint most = 0;

  for (guint cpu = 0; cpu < self->n_cpus && cpu < self->fds->n_cpus; cpu++)
    {
      int fd = self->fds->cpu_fd[cpu];
      guint n = 0;

      while (fd >= 0 && n < MAX_PAGES_PER_ROUND)
        {
          ssize_t got = read (fd, self->page, page_size);

          if (got < 0 && errno == EINTR)
            continue;
          if (got <= 0)
            break;
          qf_trace_recorder_feed_page (self, cpu, self->page, (gsize) got);
          n++;
        }
      most = MAX (most, n);
    }
  return most;
}

/* Keeps the reading thread off the measured CPUs when another CPU is allowed, and ahead of
 * ordinary tasks when it may (SCHED_FIFO 1: below any measuring thread), so a busy PC does not
 * starve it into losing events. */
static void
avoid_measured_cpus (QfTraceRecorder *self)
{
  struct sched_param low = { .sched_priority = 1 };

  pthread_setschedparam (pthread_self (), SCHED_FIFO, &low);
  cpu_set_t set;
  gboolean any = FALSE;

  if (self->config.n_avoid_cpus == 0 || sched_getaffinity (0, sizeof set, &set) != 0)
    return;
  for (guint i = 0; i < self->config.n_avoid_cpus; i++)
    if (self->config.avoid_cpus[i] >= 0 && self->config.avoid_cpus[i] < CPU_SETSIZE)
      CPU_CLR (self->config.avoid_cpus[i], &set);
  for (int c = 0; c < CPU_SETSIZE && !any; c++)
    any = CPU_ISSET (c, &set);
  if (any)
    pthread_setaffinity_np (pthread_self (), sizeof set, &set);
}

static gint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * QF_NSEC_PER_SEC + ts.tv_nsec;
}

static void *
reader_thread (void *data)
{
  QfTraceRecorder *self = data;

  avoid_measured_cpus (self);
  for (;;)
    {
      struct timespec pause = qf_ns_to_timespec (self->config.poll_ns);
      gboolean last = atomic_load (&self->stop) != 0;
      gint64 round_start = qf_clock_now_ns ();

      guint pages = read_round (self);

      settle (self, last ? G_MAXINT64 : round_start - SETTLE_MARGIN_NS);
      if (last)
        break;
      /* a CPU that filled a quarter of a 2 MiB buffer since the last round is read again at
       * once: the events come faster than the interval allows */
      if (pages < BUSY_PAGES)
        clock_nanosleep (CLOCK_MONOTONIC, 0, &pause, NULL);
    }
  self->stats.read_cpu_ns = thread_cpu_ns ();
  return NULL;
}

gboolean
qf_trace_recorder_start (QfTraceRecorder *self,
                         GError         **error)
{
  sigset_t all, old;
  int err;

  g_return_val_if_fail (self != NULL && self->fds != NULL && !self->started, FALSE);
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  err = pthread_create (&self->thread, NULL, reader_thread, self);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (err != 0)
    {
      g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FAILED,
                   _("Cannot start the trace reader: %s"), g_strerror (err));
      return FALSE;
    }
  self->started = TRUE;
  return TRUE;
}

void
qf_trace_recorder_stop (QfTraceRecorder *self)
{
  g_return_if_fail (self != NULL);
  if (!self->started)
    return;
  atomic_store (&self->stop, 1);
  pthread_join (self->thread, NULL);
  self->started = FALSE;
}

guint
qf_trace_recorder_n_spikes (const QfTraceRecorder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->spikes->len;
}

const QfTraceSpike *
qf_trace_recorder_spike (const QfTraceRecorder *self,
                         guint                  index)
{
  g_return_val_if_fail (self != NULL && index < self->spikes->len, NULL);
  return g_ptr_array_index (self->spikes, index);
}

const QfTraceStats *
qf_trace_recorder_stats (const QfTraceRecorder *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->stats;
}
