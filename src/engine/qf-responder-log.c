/* qf-responder-log.c — the latency responder's log (src/engine): one line per finished test or
 * rejected client, through a log limit (qf-admission.h), written on the thread that called
 * qf_responder_run. See qf-responder-private.h for how the responder's files fit together.
 */
#include "config.h"

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-responder-private.h"

/* Takes line. While running, the loop's thread may not call out (qf_net_run_on_own_fd_table):
 * the line goes to the thread that called qf_responder_run (_qf_responder_log_deliver). */
static void
log_line (QfResponder *self,
          char        *line)
{
  if (self->log_outbox != NULL)
    g_async_queue_push (self->log_outbox, line);
  else
    {
      self->config.log (line, self->config.log_data);
      g_free (line);
    }
}

void
_qf_responder_log (QfResponder *self,
                   const char  *format,
                   ...)
{
  g_autofree char *line = NULL;
  va_list args;

  if (self->config.log == NULL || !qf_log_limit_take (&self->log_limit, qf_clock_now_ns ()))
    return;
  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);
  log_line (self, g_steal_pointer (&line));
}

/* Every line _qf_responder_log writes is about a connection or a peer, and strangers can cause
 * them by the thousand (a port scan, a flood): through the log limit (qf-admission.h), whose
 * summary says how many were left out. */
void
_qf_responder_log_summary (QfResponder *self,
                           gint64       now_ns,
                           gboolean     force)
{
  char *line = self->config.log != NULL
               ? qf_log_limit_summary (&self->log_limit, now_ns, force) : NULL;

  if (line != NULL)
    log_line (self, line);
}

/* Counts a rejected connection or message and says why. */
void
_qf_responder_log_reject (QfResponder           *self,
                          const struct sockaddr *addr,
                          const char            *why)
{
  g_autofree char *who = qf_net_address_to_string (addr, TRUE);

  self->stats.rejected++;
  _qf_responder_log (self, _("rejected %s: %s"), who, why);
}

/* On the thread that called qf_responder_run, which writes the log as when the loop ran on it. */
void
_qf_responder_log_deliver (gpointer line,
                           gpointer user_data)
{
  QfResponder *self = user_data;

  self->config.log (line, self->config.log_data);
}
