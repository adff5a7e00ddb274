/* qf-responder-loop.c — the latency responder's run loop (src/engine): qf_responder_run's
 * thread and its one epoll loop, which accepts connections, dispatches their events and the UDP
 * socket's, keeps house every HOUSEKEEPING_NS, releases the replies the emulation held, and
 * switches to the two faster ways of serving: the sole blocking client and busy-polling.
 * See qf-responder-private.h for how the responder's files fit together.
 */
#include "config.h"

#include <errno.h>
#include <sys/epoll.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-responder-private.h"

#define HOUSEKEEPING_NS (100 * QF_NSEC_PER_MSEC)
#define SPIN_TURNS      64      /* busy-poll turns between looks at epoll */
#define FAST_WAIT_NS    (10 * QF_NSEC_PER_MSEC)

/* Ends tests that ran too long or went quiet, logs what the log limit held back and publishes
 * the client list; returns whether a spinning client is active. */
static gboolean
housekeeping (QfResponder *self,
              gint64       now_ns)
{
  _qf_responder_conn_expire_unproven (self, now_ns);
  _qf_responder_log_summary (self, now_ns, FALSE);
  _qf_responder_conn_end_overdue (self, now_ns);
  self->spin_udp = _qf_responder_udp_housekeeping (self, now_ns);
  _qf_responder_clients_publish (self, now_ns);
  return self->n_spinners > 0 || self->spin_udp;
}

/* Sends the held replies that are due. */
static void
release_held (QfResponder *self,
              gint64       now_ns)
{
  QfHeldReply reply;

  while (_qf_responder_emulator_take_due (&self->emulator, now_ns, &reply))
    {
      if (reply.tcp)
        _qf_responder_conn_send_held (self, &reply);
      else
        _qf_responder_udp_send_held (self, &reply);
      g_free (reply.data);
    }
}

/* The one TCP client when it is all that is being served (no UDP peer, no held reply, not
 * spinning, not emulating), else -1. */
static int
sole_blocking_client (QfResponder *self)
{
  int found = -1;

  if (self->emulator.n_held > 0 || self->emulator.active)
    return -1;
  for (guint i = 0; i < self->n_peers; i++)
    if (self->peers[i].in_use)
      return -1;
  /* Unproven connections wait in the epoll set (looked at every FAST_WAIT_NS at most): idle
   * strangers do not change how a client is served. */
  for (guint i = 0; i < self->n_conns; i++)
    if (self->conns[i].fd >= 0 && self->conns[i].proven)
      {
        if (found >= 0 || self->conns[i].want_out || self->conns[i].spin)
          return -1;
        found = (int) i;
      }
  return found;
}

/* The responder's event loop: the measuring loop of every mode but the sole blocking client.
 * Its busy-poll turn and its dispatch stay inline: both run once per message on the measured
 * path, where a call each would add to every round trip. */
static gboolean
run_loop (QfResponder  *self,
          const gint   *stop,
          GError      **error)
{
  struct epoll_event events[64];
  gint64 next_housekeeping = 0;
  gboolean spin = FALSE;

  while (stop == NULL || !g_atomic_int_get (stop))
    {
      gint64 now = qf_clock_now_ns ();
      int timeout_ms, n;

      if (now >= next_housekeeping)
        {
          spin = housekeeping (self, now);
          next_housekeeping = now + HOUSEKEEPING_NS;
        }
      if (self->emulator.n_held > 0)
        release_held (self, now);

      if (!spin)
        {
          int sole = sole_blocking_client (self);
          if (sole >= 0)
            {
              _qf_responder_conn_serve_sole (self, (guint) sole, stop);
              /* then one non-blocking look at everything else */
              n = epoll_wait (self->epfd, events, G_N_ELEMENTS (events), 0);
              goto dispatch;
            }
        }
      if (spin)
        {
          /* Busy-poll: receive straight from the spinning clients' sockets (two system calls
           * per message, as sockperf --nonblocked) for SPIN_TURNS turns, then one look at the
           * clock, housekeeping and epoll. A turn touches only the spinners' slots, not all
           * max-clients of them (measured level with one client; less work with many). */
          for (guint turn = 0; turn < SPIN_TURNS; turn++)
            {
              for (guint k = 0; k < self->n_spinners; k++)
                {
                  /* Not in the epoll set: a reply that did not fit is flushed from here too.
                   * Either call may close i, and the list shrinks. */
                  guint i = self->spinners[k];
                  if (self->conns[i].want_out && !_qf_responder_conn_flush (self, i))
                    continue;
                  if (!self->conns[i].want_out)
                    _qf_responder_conn_readable (self, i, FALSE);
                }
              if (self->spin_udp)
                _qf_responder_udp_readable (self);
              if (self->emulator.n_held > 0)
                release_held (self, qf_clock_now_ns ());
            }
          timeout_ms = 0;
        }
      else
        {
          gint64 wait_ns = next_housekeeping - now;
          if (self->emulator.n_held > 0)
            wait_ns = MIN (wait_ns, self->emulator.held[0].due_ns - now);
          /* Round up so a held reply is never released early. */
          timeout_ms = (int) CLAMP ((wait_ns + QF_NSEC_PER_MSEC - 1) / QF_NSEC_PER_MSEC, 0, 100);
        }

      n = epoll_wait (self->epfd, events, G_N_ELEMENTS (events), timeout_ms);
    dispatch:
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          qf_net_set_errno_error (error, errno, _("The responder's event loop failed"));
          return FALSE;
        }
      for (int i = 0; i < n; i++)
        {
          guint64 tag = events[i].data.u64;
          guint index = TAG_INDEX (tag);

          switch (TAG_TYPE (tag))
            {
            case TAG_TCP_LISTEN:
              _qf_responder_conn_accept (self);
              break;
            case TAG_UDP:
              _qf_responder_udp_readable (self);
              spin |= self->spin_udp;
              break;
            case TAG_CONN:
              if (self->conns[index].fd < 0)
                break;
              if (events[i].events & EPOLLOUT)
                {
                  if (!_qf_responder_conn_flush (self, index))
                    break;
                  if (!self->conns[index].want_out)
                    _qf_responder_conn_readable (self, index, FALSE);
                }
              else if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                _qf_responder_conn_readable (self, index, FALSE);
              spin |= self->n_spinners > 0;
              break;
            default:
              break;
            }
        }
    }
  return TRUE;
}

typedef struct
{
  QfResponder *self;
  const gint  *stop;
  GError     **error;
  gboolean     ok;
} Run;

/* The loop's thread, with a descriptor table of its own holding only the responder's sockets
 * (qf_net_run_on_own_fd_table): the connections it accepts exist there only, so it closes
 * them before it ends; its log lines go out through the outbox (qf-responder-log.c). */
static void
run_thread (gpointer     data,
            GAsyncQueue *outbox)
{
  Run *run = data;
  QfResponder *self = run->self;

  self->log_outbox = outbox;
  self->wake = qf_wake_timer_new (FAST_WAIT_NS);
  run->ok = run_loop (self, run->stop, run->error);
  _qf_responder_conn_close_all (self);
  _qf_responder_clients_publish (self, qf_clock_now_ns ());
  _qf_responder_log_summary (self, qf_clock_now_ns (), TRUE);
  g_clear_pointer (&self->wake, qf_wake_timer_free);
  self->log_outbox = NULL;
}

gboolean
qf_responder_run (QfResponder  *self,
                  const gint   *stop,
                  GError      **error)
{
  Run run = { self, stop, error, FALSE };

  g_return_val_if_fail (self != NULL, FALSE);

  qf_net_run_on_own_fd_table ("qf-responder-loop", run_thread, &run,
                              (const int[]) { self->epfd, self->tcp_fd, self->udp_fd }, 3,
                              _qf_responder_log_deliver, self);
  return run.ok;
}
