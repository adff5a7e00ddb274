/* qf-runner.c — the worker thread that runs a session's steps, and session replay (src/core).
 * See qf-runner.h.
 *
 * The worker never touches the session: before it starts, the main thread copies each step's
 * id and parameters into a plan. The worker posts events (begin, progress, end, all done) into a
 * queue that the main context drains in order, so the session is only ever changed and saved on
 * the main thread. Live samples go from the step into an SPSC ring of its own (the worker
 * produces, the main context consumes every 50 ms and empties it when the step's end arrives), so
 * a sample is never credited to the wrong step; they are recorded for replay and emitted as
 * "samples". */
#include "config.h"


#include "qf-builtin-peer.h"
#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-runner.h"
#include "qf-step.h"

#define RING_CAPACITY   (1u << 16)
#define DRAIN_PERIOD_MS 50
#define REPLAY_TICK_MS  20

typedef struct
{
  guint       index;
  char       *test;
  JsonObject *params;
  gdouble     estimate_s;
  gboolean    left_out;
} PlanItem;

typedef enum
{
  EVENT_BEGIN,
  EVENT_PROGRESS,
  EVENT_END,
  EVENT_ALL_DONE,
} EventKind;

typedef struct
{
  EventKind     kind;
  guint         index;
  gdouble       fraction;
  gdouble       t_s;
  JsonObject   *live;
  JsonObject   *result;
  GError       *error;
  QfStepStatus  status;
  char         *reason;
  gdouble       duration_s;
  gint64        start_ns;
  gboolean      cancelled;
  QfRing       *ring;       /* BEGIN: borrowed; END: owned (the step's ring, freed when handled) */
} Event;

struct _QfRunner
{
  GObject        parent_instance;

  QfSession     *session;
  GMainContext  *context;
  GThread       *thread;
  GAsyncQueue   *events;
  QfRing        *ring;            /* main thread: the running step's ring, or NULL */
  GSource       *drain_source;
  GPtrArray     *plan;            /* PlanItem */
  GStrv          only;
  GError        *save_error;
  QfBuiltinPeer *builtin_peer;
  gboolean       emulate_set;     /* training: the built-in peer emulates a link */
  QfResponderEmulation emulate;
  char          *peer;
  char          *iface;
  GBytes        *token;           /* in memory only (a pairing code); read by the worker */

  /* Shared with the worker. */
  GMutex         lock;
  gint           plan_cancel;     /* atomic */
  gint           step_cancel;     /* atomic; the current step's ctx->cancel */
  gint           current;         /* under lock; -1 when none */
  GHashTable    *skip;            /* under lock: indexes asked to be skipped */
  GCond          handled_cond;    /* signalled when n_handled grows or the run is cancelled */
  guint          n_handled;       /* under lock: events the main context has handled */
  gint           n_posted;        /* atomic: events posted */
  gint           save_failed;     /* atomic: a save failed, the run stops */

  /* Main thread. */
  gboolean       running;
  gint64         step_start_ns;
  gint           main_current;

  /* Replay. */
  gboolean       replay;
  gdouble        speed;
  JsonArray     *recorded_steps;  /* deep copy of the recorded steps */
  GSource       *replay_source;
  guint          replay_step;
  gint64         replay_step_start_ns;
  guint          replay_progress_pos;
  guint          replay_live_pos;
  guint          replay_sample_pos;
  gboolean       replay_in_step;
};

G_DEFINE_FINAL_TYPE (QfRunner, qf_runner, G_TYPE_OBJECT)

static void drain_events (QfRunner *self);

enum
{
  SIGNAL_STEP_STARTED,
  SIGNAL_PROGRESS,
  SIGNAL_SAMPLES,
  SIGNAL_STEP_FINISHED,
  SIGNAL_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
plan_item_free (gpointer data)
{
  PlanItem *item = data;

  g_free (item->test);
  g_clear_pointer (&item->params, json_object_unref);
  g_free (item);
}

static void
event_free (Event *event)
{
  g_clear_pointer (&event->live, json_object_unref);
  g_clear_pointer (&event->result, json_object_unref);
  g_clear_error (&event->error);
  g_free (event->reason);
  if (event->kind == EVENT_END)
    g_clear_pointer (&event->ring, qf_ring_free);
  g_free (event);
}

static void
qf_runner_dispose (GObject *object)
{
  QfRunner *self = QF_RUNNER (object);

  if (self->thread != NULL)
    {
      /* Dropped mid-run (a window closed during a test): stop the step, then record what the
       * worker reported, so the session is saved with the step cancelled. */
      qf_runner_cancel (self);
      g_thread_join (self->thread);
      self->thread = NULL;
      if (self->session != NULL && self->running)
        drain_events (self);
    }
  if (self->drain_source != NULL)
    {
      g_source_destroy (self->drain_source);
      g_clear_pointer (&self->drain_source, g_source_unref);
    }
  if (self->replay_source != NULL)
    {
      g_source_destroy (self->replay_source);
      g_clear_pointer (&self->replay_source, g_source_unref);
    }
  g_clear_pointer (&self->builtin_peer, qf_builtin_peer_stop);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (qf_runner_parent_class)->dispose (object);
}

static void
qf_runner_finalize (GObject *object)
{
  QfRunner *self = QF_RUNNER (object);

  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->events, g_async_queue_unref);
  g_clear_pointer (&self->plan, g_ptr_array_unref);
  g_clear_pointer (&self->only, g_strfreev);
  g_clear_error (&self->save_error);
  g_clear_pointer (&self->skip, g_hash_table_unref);
  g_clear_pointer (&self->recorded_steps, json_array_unref);
  g_free (self->peer);
  g_free (self->iface);
  g_clear_pointer (&self->token, g_bytes_unref);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->handled_cond);

  G_OBJECT_CLASS (qf_runner_parent_class)->finalize (object);
}

static void
qf_runner_class_init (QfRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = qf_runner_dispose;
  object_class->finalize = qf_runner_finalize;

  signals[SIGNAL_STEP_STARTED] =
    g_signal_new ("step-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 4, G_TYPE_UINT, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                  JSON_TYPE_OBJECT);
  signals[SIGNAL_SAMPLES] =
    g_signal_new ("samples", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_POINTER, G_TYPE_UINT);
  signals[SIGNAL_STEP_FINISHED] =
    g_signal_new ("step-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
}

static void
qf_runner_init (QfRunner *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->handled_cond);
  self->current = -1;
  self->main_current = -1;
  self->events = g_async_queue_new_full ((GDestroyNotify) event_free);
  self->skip = g_hash_table_new (NULL, NULL);
  self->plan = g_ptr_array_new_with_free_func (plan_item_free);
  self->speed = 1.0;
}

QfRunner *
qf_runner_new (QfSession *session)
{
  QfRunner *self;

  g_return_val_if_fail (QF_IS_SESSION (session), NULL);

  self = g_object_new (QF_TYPE_RUNNER, NULL);
  self->session = g_object_ref (session);
  return self;
}

QfSession *
qf_runner_get_session (QfRunner *self)
{
  g_return_val_if_fail (QF_IS_RUNNER (self), NULL);
  return self->session;
}

void
qf_runner_set_only (QfRunner          *self,
                    const char *const *keys)
{
  g_return_if_fail (QF_IS_RUNNER (self));
  g_return_if_fail (!self->running);

  g_clear_pointer (&self->only, g_strfreev);
  self->only = g_strdupv ((char **) keys);
}

gboolean
qf_runner_is_running (QfRunner *self)
{
  g_return_val_if_fail (QF_IS_RUNNER (self), FALSE);
  return self->running;
}

gint
qf_runner_get_current (QfRunner *self)
{
  g_return_val_if_fail (QF_IS_RUNNER (self), -1);
  return self->main_current;
}

const GError *
qf_runner_get_save_error (QfRunner *self)
{
  g_return_val_if_fail (QF_IS_RUNNER (self), NULL);
  return self->save_error;
}

void
qf_runner_cancel (QfRunner *self)
{
  g_return_if_fail (QF_IS_RUNNER (self));

  g_mutex_lock (&self->lock);
  g_atomic_int_set (&self->plan_cancel, 1);
  g_atomic_int_set (&self->step_cancel, 1);
  g_cond_broadcast (&self->handled_cond);
  g_mutex_unlock (&self->lock);
}

void
qf_runner_skip (QfRunner *self,
                guint     index)
{
  g_return_if_fail (QF_IS_RUNNER (self));

  g_mutex_lock (&self->lock);
  g_hash_table_add (self->skip, GUINT_TO_POINTER (index + 1));
  if (self->current == (gint) index)
    g_atomic_int_set (&self->step_cancel, 1);
  g_mutex_unlock (&self->lock);
}

/* ---- main-context side -------------------------------------------------------------------- */

/* A failed save stops the run at once: what follows could not be recorded, and session.json
 * keeps the last state that was saved, so the run can be resumed once the cause is fixed. The
 * first error is kept (later saves fail for the same reason). */
static void
keep_save_error (QfRunner *self,
                 GError   *error)
{
  if (error == NULL)
    return;
  if (self->save_error != NULL)
    {
      g_error_free (error);
      return;
    }
  g_debug ("%s", error->message);   /* the caller shows it: qf_runner_get_save_error() */
  self->save_error = error;
  g_atomic_int_set (&self->save_failed, 1);
  qf_runner_cancel (self);
}

static void
drain_ring (QfRunner *self)
{
  QfSample buffer[512];
  guint n;

  if (self->ring == NULL || self->main_current < 0)
    return;
  /* Only this step's producer writes to this ring. */
  while ((n = qf_ring_pop (self->ring, buffer, G_N_ELEMENTS (buffer))) > 0)
    {
      qf_session_record_samples (self->session, (guint) self->main_current, self->step_start_ns,
                                 buffer, n, qf_ring_dropped (self->ring));
      g_signal_emit (self, signals[SIGNAL_SAMPLES], 0, (guint) self->main_current, (gpointer) buffer, n);
    }
}

static gboolean
drain_timeout (gpointer data)
{
  QfRunner *self = QF_RUNNER (data);
  gboolean keep;

  g_object_ref (self);   /* a "finished" handler may drop the last reference */
  drain_events (self);
  drain_ring (self);
  keep = self->drain_source != NULL;
  g_object_unref (self);
  return keep ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static gdouble
remaining_estimate (QfRunner *self,
                    guint     after_index)
{
  gdouble total = 0;

  for (guint i = 0; i < self->plan->len; i++)
    {
      PlanItem *item = g_ptr_array_index (self->plan, i);
      if (item->index > after_index && !item->left_out)
        total += item->estimate_s;
    }
  return total;
}

static void
handle_event (QfRunner *self,
              Event    *event)
{
  g_autoptr(GError) error = NULL;

  switch (event->kind)
    {
    case EVENT_BEGIN:
      self->main_current = (gint) event->index;
      self->step_start_ns = event->start_ns;
      self->ring = event->ring;
      if (!qf_session_begin_step (self->session, event->index, &error))
        keep_save_error (self, g_steal_pointer (&error));
      g_signal_emit (self, signals[SIGNAL_STEP_STARTED], 0, event->index);
      break;

    case EVENT_PROGRESS:
      {
        gdouble estimate = qf_session_get_step_estimate (self->session, event->index);
        gdouble step_left = event->fraction > 0.02
                              ? event->t_s * (1 - event->fraction) / event->fraction
                              : MAX (estimate - event->t_s, 0);
        qf_session_record_progress (self->session, event->index, event->t_s, event->fraction, event->live);
        g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, event->index, event->fraction,
                       step_left + remaining_estimate (self, event->index), event->live);
      }
      break;

    case EVENT_END:
      if (event->ring != NULL && event->ring == self->ring)
        drain_ring (self);
      self->ring = NULL;
      if (!qf_session_finish_step (self->session, event->index, event->status, event->result,
                                   event->status != QF_STEP_STATUS_DONE, event->error, event->reason,
                                   event->duration_s, &error))
        keep_save_error (self, g_steal_pointer (&error));
      self->main_current = -1;
      g_signal_emit (self, signals[SIGNAL_STEP_FINISHED], 0, event->index);
      break;

    case EVENT_ALL_DONE:
    default:
      if (self->thread != NULL)
        {
          g_thread_join (self->thread);
          self->thread = NULL;
        }
      if (self->drain_source != NULL)
        {
          g_source_destroy (self->drain_source);
          g_clear_pointer (&self->drain_source, g_source_unref);
        }
      g_clear_pointer (&self->builtin_peer, qf_builtin_peer_stop);
      if (!qf_session_finish (self->session, event->cancelled, NULL, &error))
        keep_save_error (self, g_steal_pointer (&error));
      self->running = FALSE;
      g_signal_emit (self, signals[SIGNAL_FINISHED], 0, event->cancelled);
      break;
    }
}

static void
drain_events (QfRunner *self)
{
  Event *event;

  while (self->session != NULL && (event = g_async_queue_try_pop (self->events)) != NULL)
    {
      handle_event (self, event);
      event_free (event);
      g_mutex_lock (&self->lock);
      self->n_handled++;
      g_cond_broadcast (&self->handled_cond);
      g_mutex_unlock (&self->lock);
    }
}

/* ---- worker side -------------------------------------------------------------------------- */

/* Worker thread. The main context takes the events in order on its next tick (every 50 ms):
 * the queue is the only thing the two threads share, so dropping the runner never leaves a
 * callback pointing at it. */
/* Worker thread, or the step's own threads for progress. */
static void
post (QfRunner *self,
      Event    *event)
{
  g_atomic_int_inc (&self->n_posted);
  g_async_queue_push (self->events, event);
}

/* Worker thread. Waits until the main context has handled (and saved) the events posted so far,
 * so nothing more happens after a save that failed; a cancel ends the wait. The drain source is
 * woken at once rather than on its next 50 ms tick (it lives until the worker is joined).
 * FALSE when the run is to stop. */
static gboolean
wait_until_saved (QfRunner *self)
{
  guint n_posted = (guint) g_atomic_int_get (&self->n_posted);

  g_source_set_ready_time (self->drain_source, 0);
  g_mutex_lock (&self->lock);
  while (self->n_handled < n_posted && !g_atomic_int_get (&self->plan_cancel))
    g_cond_wait (&self->handled_cond, &self->lock);
  g_mutex_unlock (&self->lock);
  return !g_atomic_int_get (&self->plan_cancel);
}

typedef struct
{
  QfRunner *runner;
  guint     index;
  gint64    start_ns;
} ProgressData;

/* Worker thread (called by the step). */
static void
on_step_progress (QfStepContext *ctx,
                  gdouble        fraction,
                  JsonObject    *live,
                  gpointer       user_data)
{
  ProgressData *data = user_data;
  Event *event = g_new0 (Event, 1);

  event->kind = EVENT_PROGRESS;
  event->index = data->index;
  event->fraction = CLAMP (fraction, 0.0, 1.0);
  event->t_s = (qf_clock_now_ns () - data->start_ns) / 1e9;
  event->live = live != NULL ? qf_json_object_deep_copy (live) : NULL;
  post (data->runner, event);
}

static Event *
end_event (guint         index,
           QfStepStatus  status,
           const char   *reason)
{
  Event *event = g_new0 (Event, 1);

  event->kind = EVENT_END;
  event->index = index;
  event->status = status;
  event->reason = g_strdup (reason);
  event->duration_s = -1;
  return event;
}

/* Worker thread. Why a step was cancelled. */
static const char *
cancel_reason (QfRunner *self)
{
  if (g_atomic_int_get (&self->save_failed))
    return _("Stopped: the session could not be saved.");
  return _("Cancelled by the operator.");
}

static gpointer
worker (gpointer data)
{
  QfRunner *self = data;
  gboolean cancelled = FALSE;
  Event *event;

  for (guint i = 0; i < self->plan->len; i++)
    {
      PlanItem *item = g_ptr_array_index (self->plan, i);
      const QfStepInfo *info;
      QfStepContext ctx = { 0 };
      ProgressData progress;
      g_autoptr(JsonObject) result = NULL;
      g_autoptr(GError) error = NULL;
      gboolean skipped, ok;
      gint64 start_ns;
      QfRing *ring;

      if (!wait_until_saved (self))
        {
          cancelled = TRUE;
          break;
        }
      if (item->left_out)
        {
          post (self, end_event (item->index, QF_STEP_STATUS_NOT_RUN,
                                 _("Left out of this run (--only).")));
          continue;
        }

      g_mutex_lock (&self->lock);
      skipped = g_hash_table_contains (self->skip, GUINT_TO_POINTER (item->index + 1));
      self->current = (gint) item->index;
      g_atomic_int_set (&self->step_cancel, skipped || g_atomic_int_get (&self->plan_cancel));
      g_mutex_unlock (&self->lock);

      if (skipped)
        {
          post (self, end_event (item->index, QF_STEP_STATUS_SKIPPED, _("Skipped by the operator.")));
          continue;
        }
      info = qf_step_lookup (item->test);
      if (info == NULL)
        {
          g_autofree char *reason = g_strdup_printf (_("This build of Qualify has no “%s” test yet."),
                                                     item->test);
          post (self, end_event (item->index, QF_STEP_STATUS_NOT_RUN, reason));
          continue;
        }
      if (qf_step_needs_peer (info) && self->peer == NULL)
        {
          post (self, end_event (item->index, QF_STEP_STATUS_NOT_RUN,
                                 _("This test needs a helper machine: give its address (--peer ADDRESS) or use the built-in peer (--peer builtin).")));
          continue;
        }

      ring = qf_ring_new (RING_CAPACITY);
      start_ns = qf_clock_now_ns ();
      event = g_new0 (Event, 1);
      event->kind = EVENT_BEGIN;
      event->index = item->index;
      event->start_ns = start_ns;
      event->ring = ring;
      post (self, event);
      /* the step runs once it is recorded as running, and never after a failed save */
      if (!wait_until_saved (self))
        {
          event = end_event (item->index, QF_STEP_STATUS_CANCELLED, cancel_reason (self));
          event->ring = ring;
          post (self, event);
          break;
        }

      progress.runner = self;
      progress.index = item->index;
      progress.start_ns = start_ns;
      ctx.cancel = &self->step_cancel;
      ctx.samples = ring;
      ctx.progress = on_step_progress;
      ctx.user_data = &progress;
      ctx.peer = self->peer;
      ctx.iface = self->iface;
      ctx.token = self->token;

      ok = info->run (item->params, &ctx, &result, &error);

      g_mutex_lock (&self->lock);
      skipped = g_hash_table_contains (self->skip, GUINT_TO_POINTER (item->index + 1));
      self->current = -1;
      g_mutex_unlock (&self->lock);

      if (ok)
        event = end_event (item->index, QF_STEP_STATUS_DONE, NULL);
      else if (skipped)
        event = end_event (item->index, QF_STEP_STATUS_SKIPPED, _("Skipped by the operator."));
      else if (g_atomic_int_get (&self->plan_cancel) ||
               g_error_matches (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED))
        event = end_event (item->index, QF_STEP_STATUS_CANCELLED, cancel_reason (self));
      else
        event = end_event (item->index, QF_STEP_STATUS_FAILED,
                           error != NULL ? error->message : _("The test failed without saying why."));
      event->duration_s = (qf_clock_now_ns () - start_ns) / 1e9;
      event->ring = ring;   /* the main context empties and frees it */
      event->result = g_steal_pointer (&result);
      event->error = g_steal_pointer (&error);
      post (self, event);
    }

  if (g_atomic_int_get (&self->plan_cancel))
    cancelled = TRUE;
  event = g_new0 (Event, 1);
  event->kind = EVENT_ALL_DONE;
  event->cancelled = cancelled;
  post (self, event);
  return NULL;
}

void
qf_runner_set_emulation (QfRunner                   *self,
                         const QfResponderEmulation *emulate)
{
  g_return_if_fail (QF_IS_RUNNER (self));
  g_return_if_fail (!self->running);

  self->emulate_set = emulate != NULL;
  if (emulate != NULL)
    self->emulate = *emulate;
}

/* Training: the emulation asked for, or the one a resumed training session recorded; written
 * into the session with a note in the run's language. FALSE when it cannot apply. */
static gboolean
prepare_emulation (QfRunner  *self,
                   GError   **error)
{
  JsonObject *training = qf_session_get_training (self->session);
  g_autofree char *delay = NULL, *jitter = NULL, *loss = NULL, *text = NULL;

  if (!self->emulate_set && training != NULL)
    {
      self->emulate.delay_ms = qf_json_get_double (training, "delay_ms", 0);
      self->emulate.jitter_ms = qf_json_get_double (training, "jitter_ms", 0);
      self->emulate.loss_pct = qf_json_get_double (training, "loss_pct", 0);
      self->emulate.bloat_ms = qf_json_get_double (training, "bloat_ms", 0);
      self->emulate_set = TRUE;
    }
  if (!self->emulate_set)
    return TRUE;
  if (g_strcmp0 (qf_session_get_peer_kind (self->session), "builtin") != 0)
    {
      g_set_error_literal (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                           _("An emulated link needs the built-in peer: choose “This PC only” (--peer builtin)."));
      return FALSE;
    }
  qf_session_set_training (self->session, self->emulate.delay_ms, self->emulate.jitter_ms,
                           self->emulate.loss_pct, self->emulate.bloat_ms);
  delay = g_strdup_printf ("%.3g", self->emulate.delay_ms);
  jitter = g_strdup_printf ("%.3g", self->emulate.jitter_ms);
  loss = g_strdup_printf ("%.3g", self->emulate.loss_pct);
  text = g_strdup_printf (_("Training run, not an acceptance test: the built-in peer imitated a link that holds each reply %s ms ± %s ms and loses %s %% of UDP replies. Only the socket-latency and control-cycle tests go through it; ping and bandwidth measure this PC's loopback."),
                          delay, jitter, loss);
  if (self->emulate.bloat_ms > 0)
    {
      g_autofree char *bloat = g_strdup_printf ("%.3g", self->emulate.bloat_ms);
      g_autofree char *with_bloat = g_strdup_printf (_("%s Its queue grows with the bandwidth test's load and adds up to %s ms to each reply while the link is saturated."),
                                                    text, bloat);
      g_free (text);
      text = g_steal_pointer (&with_bloat);
    }
  qf_session_add_note (self->session, "training", text);
  return TRUE;
}

/* Adds the built-in peer's port to the params of the steps that talk to it. */
/* The port of the peer's service a network test talks to: the built-in peer's (chosen when it
 * started), or the one a remote helper machine announced (kept in the session); none: the
 * step's default. */
static void
add_peer_ports (QfRunner   *self,
                const char *test,
                JsonObject *params)
{
  const QfStepInfo *info = qf_step_lookup (test);
  gboolean remote = g_strcmp0 (qf_session_get_peer_kind (self->session), "remote") == 0;
  guint16 port = 0;

  if (info == NULL || (self->builtin_peer == NULL && !remote))
    return;
  if (info->peer_service == QF_PEER_SERVICE_LATENCY)
    port = self->builtin_peer != NULL ? qf_builtin_peer_get_latency_port (self->builtin_peer)
                                      : qf_session_get_peer_latency_port (self->session);
  else if (info->peer_service == QF_PEER_SERVICE_BANDWIDTH)
    port = self->builtin_peer != NULL ? qf_builtin_peer_get_bandwidth_port (self->builtin_peer)
                                      : qf_session_get_peer_bandwidth_port (self->session);
  if (port != 0)
    json_object_set_int_member (params, "port", port);
  if (info->load_service == QF_PEER_SERVICE_BANDWIDTH)
    {
      port = self->builtin_peer != NULL ? qf_builtin_peer_get_bandwidth_port (self->builtin_peer)
                                        : qf_session_get_peer_bandwidth_port (self->session);
      if (port != 0)
        json_object_set_int_member (params, "load_port", port);
    }
}

static gboolean start_replay (QfRunner *self);

void
qf_runner_set_token (QfRunner *self,
                     GBytes   *token)
{
  g_return_if_fail (QF_IS_RUNNER (self));
  g_return_if_fail (!self->running);

  g_clear_pointer (&self->token, g_bytes_unref);
  self->token = token != NULL ? g_bytes_ref (token) : NULL;
}

gboolean
qf_runner_start (QfRunner  *self,
                 GError   **error)
{
  guint n_steps;

  g_return_val_if_fail (QF_IS_RUNNER (self), FALSE);
  g_return_val_if_fail (!self->running, FALSE);

  if (self->replay)
    return start_replay (self);

  self->context = g_main_context_ref_thread_default ();
  g_atomic_int_set (&self->plan_cancel, 0);
  g_atomic_int_set (&self->step_cancel, 0);
  g_atomic_int_set (&self->save_failed, 0);
  g_clear_error (&self->save_error);
  g_hash_table_remove_all (self->skip);
  g_ptr_array_set_size (self->plan, 0);

  if (self->token == NULL && qf_session_get_pairing_code_used (self->session))
    {
      g_set_error_literal (error, QF_SESSION_ERROR, QF_SESSION_ERROR_NEEDS_CODE,
                           _("This session reached its helper machine with a pairing code, which is never saved. Type the code the helper machine shows again to continue."));
      return FALSE;
    }
  g_free (self->peer);
  self->peer = g_strdup (qf_session_get_peer_address (self->session));
  g_free (self->iface);
  self->iface = g_strdup (qf_session_get_iface (self->session));
  if (!prepare_emulation (self, error))
    return FALSE;
  if (g_strcmp0 (qf_session_get_peer_kind (self->session), "builtin") == 0)
    {
      self->builtin_peer = qf_builtin_peer_start (self->emulate_set ? &self->emulate : NULL, error);
      if (self->builtin_peer == NULL)
        return FALSE;
      g_free (self->peer);
      self->peer = g_strdup (qf_builtin_peer_get_host (self->builtin_peer));
    }

  /* without a choice of its own, a resumed session runs the tests it was asked for */
  if (self->only == NULL)
    self->only = qf_session_get_only (self->session);
  n_steps = qf_session_get_n_steps (self->session);
  for (guint i = 0; i < n_steps; i++)
    {
      PlanItem *item;

      if (qf_session_get_step_status (self->session, i) != QF_STEP_STATUS_PENDING)
        continue;
      item = g_new0 (PlanItem, 1);
      item->index = i;
      item->test = g_strdup (qf_session_get_step_test (self->session, i));
      item->params = qf_json_object_deep_copy (qf_session_get_step_params (self->session, i));
      item->estimate_s = qf_session_get_step_estimate (self->session, i);
      item->left_out = self->only != NULL &&
                       !g_strv_contains ((const char *const *) self->only,
                                         qf_session_get_step_key (self->session, i));
      add_peer_ports (self, item->test, item->params);
      g_ptr_array_add (self->plan, item);
    }

  self->drain_source = g_timeout_source_new (DRAIN_PERIOD_MS);
  g_source_set_callback (self->drain_source, drain_timeout, self, NULL);
  g_source_attach (self->drain_source, self->context);

  self->running = TRUE;
  self->thread = g_thread_new ("qf-runner", worker, self);
  return TRUE;
}

/* ---- replay ------------------------------------------------------------------------------- */

QfRunner *
qf_runner_new_replay (QfSession *recorded,
                      gdouble    speed)
{
  g_autoptr(GError) error = NULL;
  QfRunner *self;
  QfSession *copy;

  g_return_val_if_fail (QF_IS_SESSION (recorded), NULL);
  g_return_val_if_fail (speed > 0, NULL);

  copy = qf_session_new_from_json (qf_session_get_json (recorded), "replay", &error);
  g_return_val_if_fail (copy != NULL, NULL);
  self = g_object_new (QF_TYPE_RUNNER, NULL);
  self->session = copy;
  self->replay = TRUE;
  self->speed = speed;
  self->recorded_steps = json_array_ref (qf_json_get_array (qf_session_get_json (recorded), "steps"));
  /* Deep copy: the copy's steps are reset and refilled as the replay goes. */
  {
    JsonArray *steps = json_array_new ();
    for (guint i = 0; i < json_array_get_length (self->recorded_steps); i++)
      json_array_add_element (steps, qf_json_node_deep_copy (json_array_get_element (self->recorded_steps, i)));
    json_array_unref (self->recorded_steps);
    self->recorded_steps = steps;
  }
  return self;
}

static void
replay_finish_step (QfRunner *self,
                    guint     index)
{
  JsonObject *recorded = json_array_get_object_element (self->recorded_steps, index);
  JsonObject *step;
  QfStepStatus status = QF_STEP_STATUS_NOT_RUN;
  JsonObject *err = qf_json_get_object (recorded, "error");
  g_autoptr(GError) step_error = NULL;
  g_autoptr(GError) error = NULL;
  static const char *const kept[] = { "progress", "live", "samples", "classic_command", "started_at",
                                      "finished_at", NULL };

  qf_step_status_from_string (qf_json_get_string (recorded, "status", NULL), &status);
  if (err != NULL)
    step_error = g_error_new_literal (g_quark_from_string (qf_json_get_string (err, "domain", "qf-step-error-quark")),
                                      (gint) qf_json_get_double (err, "code", 0),
                                      qf_json_get_string (err, "message", ""));
  qf_session_finish_step (self->session, index, status, qf_json_get_object (recorded, "result"),
                          FALSE,
                          step_error, qf_json_get_string (recorded, "status_reason", NULL),
                          qf_json_get_double (recorded, "duration_s", -1), &error);
  step = qf_session_get_step (self->session, index);
  json_object_set_boolean_member (step, "partial",
                                  json_object_has_member (recorded, "partial") &&
                                  json_object_get_boolean_member (recorded, "partial"));
  for (guint i = 0; kept[i] != NULL; i++)
    if (json_object_has_member (recorded, kept[i]))
      json_object_set_member (step, kept[i], qf_json_node_deep_copy (json_object_get_member (recorded, kept[i])));
  qf_session_recompute (self->session);
  g_signal_emit (self, signals[SIGNAL_STEP_FINISHED], 0, index);
}

static gboolean
replay_tick (gpointer data)
{
  QfRunner *self = QF_RUNNER (data);
  guint n_steps = json_array_get_length (self->recorded_steps);

  while (self->replay_step < n_steps)
    {
      JsonObject *recorded = json_array_get_object_element (self->recorded_steps, self->replay_step);
      const char *status = qf_json_get_string (recorded, "status", "");
      gdouble duration = qf_json_get_double (recorded, "duration_s", 0);
      JsonArray *progress = qf_json_get_array (recorded, "progress");
      JsonArray *live = qf_json_get_array (recorded, "live");
      JsonObject *samples = qf_json_get_object (recorded, "samples");
      gdouble now_s;

      if (g_atomic_int_get (&self->plan_cancel))
        break;
      if (g_str_equal (status, "not-run") || g_str_equal (status, "skipped") || g_str_equal (status, "pending"))
        {
          replay_finish_step (self, self->replay_step);
          self->replay_step++;
          continue;
        }
      if (!self->replay_in_step)
        {
          g_autoptr(GError) error = NULL;
          self->replay_in_step = TRUE;
          self->replay_step_start_ns = qf_clock_now_ns ();
          self->replay_progress_pos = self->replay_live_pos = self->replay_sample_pos = 0;
          self->main_current = (gint) self->replay_step;
          qf_session_begin_step (self->session, self->replay_step, &error);
          g_signal_emit (self, signals[SIGNAL_STEP_STARTED], 0, self->replay_step);
        }
      now_s = (qf_clock_now_ns () - self->replay_step_start_ns) / 1e9 * self->speed;

      /* Samples due by now, in batches. */
      if (samples != NULL)
        {
          JsonArray *t = qf_json_get_array (samples, "t_ns");
          JsonArray *v = qf_json_get_array (samples, "value_ns");
          JsonArray *ch = qf_json_get_array (samples, "channel");
          QfSample batch[256];
          guint n = 0;

          while (t != NULL && v != NULL && ch != NULL && self->replay_sample_pos < json_array_get_length (t))
            {
              gint64 t_ns = json_array_get_int_element (t, self->replay_sample_pos);
              if (t_ns / 1e9 > now_s)
                break;
              batch[n].t_ns = self->replay_step_start_ns + (gint64) (t_ns / self->speed);
              batch[n].value_ns = json_array_get_int_element (v, self->replay_sample_pos);
              batch[n].channel = (guint32) json_array_get_int_element (ch, self->replay_sample_pos);
              batch[n].flags = 0;
              n++;
              self->replay_sample_pos++;
              if (n == G_N_ELEMENTS (batch))
                {
                  g_signal_emit (self, signals[SIGNAL_SAMPLES], 0, self->replay_step, (gpointer) batch, n);
                  n = 0;
                }
            }
          if (n > 0)
            g_signal_emit (self, signals[SIGNAL_SAMPLES], 0, self->replay_step, (gpointer) batch, n);
        }

      /* Progress and live figures due by now. */
      while (progress != NULL && self->replay_progress_pos < json_array_get_length (progress))
        {
          JsonArray *point = json_array_get_array_element (progress, self->replay_progress_pos);
          gdouble t_s = json_array_get_double_element (point, 0);
          gdouble fraction = json_array_get_double_element (point, 1);
          JsonObject *live_obj = NULL;

          if (t_s > now_s)
            break;
          if (live != NULL && self->replay_live_pos < json_array_get_length (live))
            {
              JsonArray *live_point = json_array_get_array_element (live, self->replay_live_pos);
              if (json_array_get_double_element (live_point, 0) <= t_s)
                {
                  live_obj = json_array_get_object_element (live_point, 1);
                  self->replay_live_pos++;
                }
            }
          qf_session_record_progress (self->session, self->replay_step, t_s, fraction, live_obj);
          g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, self->replay_step, fraction,
                         MAX (duration - t_s, 0) / self->speed, live_obj);
          self->replay_progress_pos++;
        }

      if (now_s < duration)
        return G_SOURCE_CONTINUE;
      self->replay_in_step = FALSE;
      self->main_current = -1;
      replay_finish_step (self, self->replay_step);
      self->replay_step++;
    }

  {
    gboolean cancelled = g_atomic_int_get (&self->plan_cancel) != 0;
    g_autoptr(GError) error = NULL;

    json_object_set_string_member (qf_session_get_json (self->session), "state",
                                   cancelled ? "cancelled" : "complete");
    qf_session_recompute (self->session);
    self->running = FALSE;
    g_clear_pointer (&self->replay_source, g_source_unref);
    g_signal_emit (self, signals[SIGNAL_FINISHED], 0, cancelled);
  }
  return G_SOURCE_REMOVE;
}

/* Replay runs on the main context with a tick; it changes nothing on disk. */
static gboolean
start_replay (QfRunner *self)
{
  self->context = g_main_context_ref_thread_default ();
  for (guint i = 0; i < qf_session_get_n_steps (self->session); i++)
    {
      JsonObject *step = qf_session_get_step (self->session, i);
      json_object_set_string_member (step, "status", "pending");
      json_object_set_null_member (step, "status_reason");
      json_object_set_null_member (step, "result");
      json_object_set_null_member (step, "error");
      json_object_set_array_member (step, "progress", json_array_new ());
      json_object_set_array_member (step, "live", json_array_new ());
      json_object_set_null_member (step, "samples");
    }
  json_object_set_string_member (qf_session_get_json (self->session), "state", "running");
  qf_session_recompute (self->session);
  self->running = TRUE;
  self->replay_source = g_timeout_source_new (REPLAY_TICK_MS);
  g_source_set_callback (self->replay_source, replay_tick, self, NULL);
  g_source_attach (self->replay_source, self->context);
  return TRUE;
}
