/* qf-trace-analysis.c — where the time of one spike went (src/engine); see qf-trace-analysis.h.
 *
 * Three passes over the spike's events: find the landmarks (the thread's wake-up, the timer
 * expiry that caused it, the switch to the thread); sweep the window CPU by CPU into raw pieces,
 * each with the context that held the CPU (an interrupt, a timer, a softirq, or a task named by
 * the next record's own task); then charge each piece to an item and merge.
 */
#include "config.h"

#include <string.h>

#include "qf-trace-analysis.h"

#define WAKE_SLACK_NS     (100 * 1000)   /* a SCHED_OTHER timer may fire late by its slack */
#define NONPREEMPT_NS     (30 * 1000)    /* a lower-priority task preempted later than this held
                                          * the CPU (a non-preemptible section): named */
#define MAX_IRQ_DEPTH     8
#define UNKNOWN           G_MININT64

typedef enum
{
  CTX_TASK,
  CTX_IRQ,
  CTX_TIMER_OTHER,
  CTX_TIMER_OURS,
  CTX_SOFTIRQ,
} Ctx;

typedef struct
{
  gint64   from, to;
  Ctx      ctx;
  gint32   id;              /* irq number, softirq vector or pid */
  gboolean after_expiry;
  gboolean before_wake;
} Piece;

typedef struct
{
  gint32  irqs[MAX_IRQ_DEPTH];
  guint   depth;
  gint32  softirq;          /* -1 none */
  guint64 timer;            /* 0 none */
} CpuState;

typedef struct
{
  const QfTraceSpike *spike;
  QfSpikeWait         wait;
  gint32              tid;
  guint               run_cpu;
  gint                wake_cpu;       /* -1 unknown */
  gint64              start, end;     /* the window, trace clock */
  gint64              waking;         /* UNKNOWN or a time */
  gint64              expiry;         /* the split between "before" and "after" the expiry */
  gint64              switch_in;      /* UNKNOWN or a time */
  guint64             our_timer;      /* the hrtimer whose expiry woke the thread, 0 unknown */
  gint32              our_prio;
  QfSpikeFlags        flags;
  GArray             *pieces;         /* Piece */
} Walk;

static const char *const softirq_names[] = {
  "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

const char *
qf_trace_softirq_name (guint32 vec)
{
  return vec < G_N_ELEMENTS (softirq_names) ? softirq_names[vec] : "?";
}

gint
qf_trace_rt_priority (gint32 prio)
{
  return prio >= 0 && prio < 99 ? 99 - prio : -1;
}

/* The landmarks: the thread's last wake-up in the window, the timer expiry around it, and
 * the switch that gave the thread its CPU. */
static void
find_landmarks (Walk *w)
{
  const QfTraceSpike *s = w->spike;
  gint64 wakeup = UNKNOWN;
  gint wakeup_cpu = -1;

  for (guint i = 0; i < s->n_events; i++)
    {
      const QfTraceEvent *ev = &s->events[i];

      if (ev->ts_ns < w->start - WAKE_SLACK_NS || ev->ts_ns > w->end)
        continue;
      if (ev->kind == QF_TRACE_EV_WAKING && ev->wake.pid == w->tid)
        {
          w->waking = ev->ts_ns;
          w->wake_cpu = ev->cpu;
        }
      else if (ev->kind == QF_TRACE_EV_WAKEUP && ev->wake.pid == w->tid)
        {
          wakeup = ev->ts_ns;
          wakeup_cpu = ev->cpu;
        }
    }
  if (w->waking == UNKNOWN && wakeup != UNKNOWN)
    {
      w->waking = wakeup;
      w->wake_cpu = wakeup_cpu;
    }
  if (w->waking != UNKNOWN)
    w->waking = CLAMP (w->waking, w->start, w->end);

  /* the timer: the last expiry entered on the waking CPU before the wake-up */
  w->expiry = w->waking != UNKNOWN ? w->waking : w->start;
  for (guint i = 0; w->wait == QF_SPIKE_WAIT_TIMER && w->waking != UNKNOWN && i < s->n_events; i++)
    {
      const QfTraceEvent *ev = &s->events[i];

      if (ev->ts_ns > w->waking)
        break;
      if (ev->kind == QF_TRACE_EV_TIMER_ENTRY && (gint) ev->cpu == w->wake_cpu
          && ev->ts_ns >= w->start - WAKE_SLACK_NS)
        {
          w->expiry = MAX (ev->ts_ns, w->start);
          w->our_timer = ev->timer.hrtimer;
        }
    }

  for (guint i = 0; i < s->n_events; i++)
    {
      const QfTraceEvent *ev = &s->events[i];

      if (ev->kind == QF_TRACE_EV_SWITCH && ev->sw.next_pid == w->tid && ev->cpu == w->run_cpu
          && ev->ts_ns >= MAX (w->expiry, w->start) && ev->ts_ns <= w->end)
        {
          w->switch_in = ev->ts_ns;
          break;
        }
    }
}

static void
apply (CpuState           *st,
       const QfTraceEvent *ev)
{
  switch (ev->kind)
    {
    case QF_TRACE_EV_IRQ_ENTRY:
      if (st->depth < MAX_IRQ_DEPTH)
        st->irqs[st->depth++] = ev->irq.irq;
      break;
    case QF_TRACE_EV_IRQ_EXIT:
      if (st->depth > 0)
        st->depth--;
      break;
    case QF_TRACE_EV_SOFTIRQ_ENTRY:
      st->softirq = (gint32) ev->softirq.vec;
      break;
    case QF_TRACE_EV_SOFTIRQ_EXIT:
      st->softirq = -1;
      break;
    case QF_TRACE_EV_TIMER_ENTRY:
      st->timer = ev->timer.hrtimer ? ev->timer.hrtimer : 1;
      break;
    case QF_TRACE_EV_TIMER_EXIT:
      st->timer = 0;
      break;
    case QF_TRACE_EV_SWITCH:
      /* a switch happens in task context: whatever was open was lost before the window */
      st->depth = 0;
      st->softirq = -1;
      st->timer = 0;
      break;
    default:
      break;
    }
}

/* What held the CPU just before next (NULL: no later event on this CPU). An exit with no
 * entry seen means the window began inside that handler. */
static Ctx
context (const Walk         *w,
         const CpuState     *st,
         const QfTraceEvent *next,
         guint               cpu,
         gint32             *id)
{
  if (st->depth > 0 || (next != NULL && next->kind == QF_TRACE_EV_IRQ_EXIT))
    {
      *id = st->depth > 0 ? st->irqs[st->depth - 1] : next->irq.irq;
      return CTX_IRQ;
    }
  if (st->timer != 0 || (next != NULL && next->kind == QF_TRACE_EV_TIMER_EXIT))
    {
      guint64 timer = st->timer != 0 ? st->timer : next->timer.hrtimer;
      *id = -1;
      return w->our_timer != 0 && timer == w->our_timer ? CTX_TIMER_OURS : CTX_TIMER_OTHER;
    }
  if (st->softirq >= 0 || (next != NULL && next->kind == QF_TRACE_EV_SOFTIRQ_EXIT))
    {
      *id = st->softirq >= 0 ? st->softirq : (gint32) next->softirq.vec;
      return CTX_SOFTIRQ;
    }
  *id = next != NULL ? next->pid : (cpu == w->run_cpu ? w->tid : -1);
  return CTX_TASK;
}

/* Appends [from, to) with its context, cut at the expiry and the wake-up. */
static void
add_piece (Walk  *w,
           gint64 from,
           gint64 to,
           Ctx    ctx,
           gint32 id)
{
  gint64 cuts[2] = { w->expiry, w->waking };

  for (guint c = 0; c < G_N_ELEMENTS (cuts); c++)
    if (cuts[c] != UNKNOWN && cuts[c] > from && cuts[c] < to)
      {
        add_piece (w, from, cuts[c], ctx, id);
        add_piece (w, cuts[c], to, ctx, id);
        return;
      }
  if (to > from)
    {
      Piece p = { from, to, ctx, id, from >= w->expiry,
                  w->waking == UNKNOWN || to <= w->waking };
      g_array_append_val (w->pieces, p);
    }
}

/* Cuts [from, to) of cpu into pieces, by the events of that CPU. */
static void
sweep (Walk  *w,
       guint  cpu,
       gint64 from,
       gint64 to)
{
  const QfTraceSpike *s = w->spike;
  CpuState st = { .softirq = -1 };
  gint64 t = from;
  gint32 id;
  Ctx ctx;

  for (guint i = 0; i < s->n_events && t < to; i++)
    {
      const QfTraceEvent *ev = &s->events[i];
      gint64 edge;

      if (ev->cpu != cpu)
        continue;
      if (ev->ts_ns >= from)
        {
          edge = MIN (ev->ts_ns, to);
          ctx = context (w, &st, ev, cpu, &id);
          add_piece (w, t, edge, ctx, id);
          t = MAX (t, edge);
        }
      apply (&st, ev);
    }
  if (t < to)
    {
      ctx = context (w, &st, NULL, cpu, &id);
      add_piece (w, t, to, ctx, id);
    }
}

/* The kernel prio of pid from the events (a switch or a wake-up names it), else the recorder's
 * task table; -1 when neither does. The name likewise. */
static gint32
task_facts (const QfTraceSpike *s,
            gint32              pid,
            char               *name,
            gsize               name_len)
{
  gint32 prio = -1;

  name[0] = '\0';
  for (guint i = 0; i < s->n_events; i++)
    {
      const QfTraceEvent *ev = &s->events[i];

      if (ev->kind == QF_TRACE_EV_SWITCH && ev->sw.prev_pid == pid)
        {
          prio = ev->sw.prev_prio;
          g_strlcpy (name, ev->sw.prev_comm, name_len);
        }
      else if (ev->kind == QF_TRACE_EV_SWITCH && ev->sw.next_pid == pid)
        {
          prio = ev->sw.next_prio;
          g_strlcpy (name, ev->sw.next_comm, name_len);
        }
      else if ((ev->kind == QF_TRACE_EV_WAKING || ev->kind == QF_TRACE_EV_WAKEUP)
               && ev->wake.pid == pid)
        {
          prio = ev->wake.prio;
          g_strlcpy (name, ev->wake.comm, name_len);
        }
    }
  for (guint i = 0; i < s->n_tasks && (prio < 0 || name[0] == '\0'); i++)
    if (s->tasks[i].pid == pid)
      {
        if (prio < 0)
          prio = s->tasks[i].prio;
        if (name[0] == '\0')
          g_strlcpy (name, s->tasks[i].comm, name_len);
      }
  return prio;
}

static void
irq_name (const QfTraceSpike *s,
          gint32              irq,
          char               *name,
          gsize               name_len)
{
  if (irq < 0)
    {
      g_strlcpy (name, "local timer", name_len);
      return;
    }
  name[0] = '\0';
  for (guint i = 0; i < s->n_events; i++)
    if (s->events[i].kind == QF_TRACE_EV_IRQ_ENTRY && s->events[i].irq.irq == irq)
      {
        g_strlcpy (name, s->events[i].irq.name, name_len);
        return;
      }
}

/* The index of the item of that kind and id in items, added when new. */
static guint
item_for (GArray             *items,
          const QfTraceSpike *s,
          QfCauseKind         kind,
          gint32              id)
{
  QfCauseItem item = { kind, -1, -1, -1, FALSE, "", 0 };

  for (guint i = 0; i < items->len; i++)
    {
      const QfCauseItem *it = &g_array_index (items, QfCauseItem, i);
      if (it->kind == kind && (kind == QF_CAUSE_TASK ? it->pid == id : it->irq == id))
        return i;
    }
  if (kind == QF_CAUSE_TASK)
    {
      item.pid = id;
      item.prio = task_facts (s, id, item.name, sizeof item.name);
    }
  else if (kind == QF_CAUSE_IRQ || kind == QF_CAUSE_SOFTIRQ)
    {
      item.irq = id;
      if (kind == QF_CAUSE_IRQ)
        irq_name (s, id, item.name, sizeof item.name);
      else
        g_strlcpy (item.name, qf_trace_softirq_name ((guint32) id), sizeof item.name);
    }
  g_array_append_val (items, item);
  return items->len - 1;
}

/* Whether pid, running after the expiry, is charged as a task: it has the thread's real-time
 * priority or a higher one, or it kept the CPU longer than a preemption takes (on bare metal
 * only: on a virtual machine the hypervisor may have held it). */
static gboolean
task_is_cause (Walk  *w,
               gint32 pid,
               gint64 held_after_expiry_ns)
{
  char name[QF_TRACE_COMM_LEN];
  gint32 prio = task_facts (w->spike, pid, name, sizeof name);

  if (prio >= 0 && prio < 100 && prio <= w->our_prio)
    return TRUE;
  return held_after_expiry_ns >= NONPREEMPT_NS && !(w->flags & QF_SPIKE_VIRTUAL_MACHINE);
}

/* How long each pid (the thread included) held the CPU after the expiry. */
static GHashTable *
time_held (Walk *w)
{
  GHashTable *held = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  for (guint i = 0; i < w->pieces->len; i++)
    {
      const Piece *p = &g_array_index (w->pieces, Piece, i);
      gint64 *sum;

      if (p->ctx != CTX_TASK || !p->after_expiry || p->id <= 0)
        continue;
      sum = g_hash_table_lookup (held, GINT_TO_POINTER (p->id));
      if (sum == NULL)
        g_hash_table_insert (held, GINT_TO_POINTER (p->id), sum = g_new0 (gint64, 1));
      *sum += p->to - p->from;
    }
  return held;
}

/* The item kind of a task piece; *unexplained_as says why time is unexplained. */
static QfCauseKind
classify_task (Walk        *w,
               const Piece *p,
               GHashTable  *held,
               guint       *unexplained_as)
{
  if (w->wait == QF_SPIKE_WAIT_REPLY && p->before_wake)
    {
      *unexplained_as = 2;      /* network */
      return QF_CAUSE_UNEXPLAINED;
    }
  if (p->id == w->tid)
    {
      /* the thread's own way back from its sleep takes microseconds; when it "ran" far longer
       * with no event at all, something outside the kernel's view held the CPU */
      gint64 *own = g_hash_table_lookup (held, GINT_TO_POINTER (p->id));
      *unexplained_as = 0;
      return own != NULL && *own > NONPREEMPT_NS ? QF_CAUSE_UNEXPLAINED : QF_CAUSE_SCHED_DELAY;
    }
  if (p->id == 0)
    {
      *unexplained_as = 1;      /* idle */
      return p->after_expiry ? QF_CAUSE_SCHED_DELAY : QF_CAUSE_UNEXPLAINED;
    }
  if (p->id < 0 || !p->after_expiry)
    {
      *unexplained_as = 0;
      return QF_CAUSE_UNEXPLAINED;
    }
  {
    gint64 *sum = g_hash_table_lookup (held, GINT_TO_POINTER (p->id));
    gint64 kept = sum != NULL ? *sum : 0;

    if (task_is_cause (w, p->id, kept))
      return QF_CAUSE_TASK;
    /* kept longer than a preemption takes, on a virtual machine: no event says by whom */
    if (kept >= NONPREEMPT_NS)
      {
        *unexplained_as = 0;
        return QF_CAUSE_UNEXPLAINED;
      }
    return QF_CAUSE_SCHED_DELAY;
  }
}

static gint
compare_items (gconstpointer a,
               gconstpointer b)
{
  const QfCauseItem *x = a, *y = b;

  return x->duration_ns > y->duration_ns ? -1 : x->duration_ns < y->duration_ns ? 1 : 0;
}

/* Sorts the items largest first and renumbers the segments to match. */
static void
sort_items (QfSpikeAnalysis *a,
            GArray          *items)
{
  g_autofree guint *order = g_new (guint, items->len);
  g_autofree QfCauseItem *copy = g_memdup2 (items->data, sizeof (QfCauseItem) * items->len);

  g_array_sort (items, compare_items);
  for (guint i = 0; i < items->len; i++)
    for (guint j = 0; j < items->len; j++)
      if (memcmp (&copy[i], &g_array_index (items, QfCauseItem, j), sizeof (QfCauseItem)) == 0)
        {
          order[i] = j;
          break;
        }
  for (guint i = 0; i < a->n_segments; i++)
    a->segments[i].item = order[a->segments[i].item];
}

/* Charges every piece to an item; builds the merged segments. */
static void
charge (Walk            *w,
        QfSpikeAnalysis *a)
{
  g_autoptr(GHashTable) held = time_held (w);
  GArray *items = g_array_new (FALSE, TRUE, sizeof (QfCauseItem));
  GArray *segments = g_array_new (FALSE, TRUE, sizeof (QfCauseSegment));
  gint64 unexplained_by[3] = { 0, 0, 0 };   /* other, idle, network */

  for (guint i = 0; i < w->pieces->len; i++)
    {
      const Piece *p = &g_array_index (w->pieces, Piece, i);
      guint why = 0, index;
      QfCauseKind kind;

      switch (p->ctx)
        {
        case CTX_IRQ:
          kind = QF_CAUSE_IRQ;
          break;
        case CTX_TIMER_OTHER:
          kind = QF_CAUSE_IRQ;
          break;
        case CTX_TIMER_OURS:
          kind = QF_CAUSE_SCHED_DELAY;
          break;
        case CTX_SOFTIRQ:
          kind = QF_CAUSE_SOFTIRQ;
          break;
        case CTX_TASK:
        default:
          kind = classify_task (w, p, held, &why);
          break;
        }
      index = item_for (items, w->spike, kind, p->ctx == CTX_TASK && kind == QF_CAUSE_TASK
                                                 ? p->id : (p->ctx == CTX_TASK ? -1 : p->id));
      g_array_index (items, QfCauseItem, index).duration_ns += p->to - p->from;
      if (kind == QF_CAUSE_UNEXPLAINED)
        unexplained_by[why] += p->to - p->from;
      if (segments->len > 0 && g_array_index (segments, QfCauseSegment, segments->len - 1).item == index)
        g_array_index (segments, QfCauseSegment, segments->len - 1).duration_ns += p->to - p->from;
      else
        {
          QfCauseSegment seg = { p->from - w->start, p->to - p->from, index };
          g_array_append_val (segments, seg);
        }
    }
  for (guint i = 0; i < items->len; i++)
    {
      QfCauseItem *it = &g_array_index (items, QfCauseItem, i);
      if (it->kind == QF_CAUSE_UNEXPLAINED)
        g_strlcpy (it->name, unexplained_by[2] >= MAX (unexplained_by[0], unexplained_by[1])
                               && unexplained_by[2] > 0 ? "network"
                             : unexplained_by[1] > unexplained_by[0] ? "idle" : "",
                   sizeof it->name);
      if (it->kind == QF_CAUSE_TASK)
        it->preempted_late = !(it->prio >= 0 && it->prio < 100 && it->prio <= w->our_prio);
    }
  a->n_segments = segments->len;
  a->segments = (QfCauseSegment *) g_array_free (segments, FALSE);
  sort_items (a, items);
  a->n_items = items->len;
  a->items = (QfCauseItem *) g_array_free (items, FALSE);
}

/* The thread's own kernel prio from the trace, else the caller's. */
static gint32
thread_prio (const Walk *w,
             gint32      fallback)
{
  char name[QF_TRACE_COMM_LEN];
  gint32 prio = task_facts (w->spike, w->tid, name, sizeof name);

  return prio >= 0 ? prio : fallback;
}

QfSpikeAnalysis *
qf_trace_analyze (const QfTraceSpike *spike,
                  QfSpikeWait         wait,
                  gint32              measuring_prio,
                  QfSpikeFlags        flags)
{
  QfSpikeAnalysis *a;
  Walk w = { 0 };

  g_return_val_if_fail (spike != NULL, NULL);
  a = g_new0 (QfSpikeAnalysis, 1);
  a->cpu = spike->cpu;
  a->tid = spike->tid;
  a->start_ns = spike->start_ns;
  a->latency_ns = MAX (spike->latency_ns, 0);
  a->incomplete = spike->incomplete;
  a->waker_cpu = -1;
  a->expiry_ns = a->waking_ns = a->switch_in_ns = -1;
  if (a->latency_ns == 0)
    return a;

  w.spike = spike;
  w.wait = wait;
  w.flags = flags;
  w.tid = spike->tid;
  w.run_cpu = spike->cpu;
  w.wake_cpu = -1;
  w.start = spike->start_ns;
  w.end = spike->start_ns + a->latency_ns;
  w.waking = w.switch_in = UNKNOWN;
  w.pieces = g_array_new (FALSE, FALSE, sizeof (Piece));
  find_landmarks (&w);
  w.our_prio = thread_prio (&w, measuring_prio);

  if (w.waking != UNKNOWN && w.wake_cpu >= 0 && (guint) w.wake_cpu != w.run_cpu)
    {
      sweep (&w, (guint) w.wake_cpu, w.start, w.waking);
      sweep (&w, w.run_cpu, w.waking, w.end);
    }
  else
    sweep (&w, w.run_cpu, w.start, w.end);
  charge (&w, a);

  a->waker_cpu = w.wake_cpu;
  a->expiry_ns = w.waking != UNKNOWN || wait == QF_SPIKE_WAIT_TIMER ? w.expiry - w.start : -1;
  a->waking_ns = w.waking != UNKNOWN ? w.waking - w.start : -1;
  a->switch_in_ns = w.switch_in != UNKNOWN ? w.switch_in - w.start : -1;
  g_array_unref (w.pieces);
  return a;
}

void
qf_spike_analysis_free (QfSpikeAnalysis *analysis)
{
  if (analysis == NULL)
    return;
  g_free (analysis->items);
  g_free (analysis->segments);
  g_free (analysis);
}
