/* qf-netload.c — a network load in the background (src/engine). See qf-netload.h.
 *
 * The bandwidth client runs on its own thread with a test time beyond the measurement's; a
 * stop sets its cancel flag, and the client ends within a second with what it moved. The
 * intervals it reports (every 0.25 s) tell the waiting thread that data moves.
 */
#include "config.h"

#include <string.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-netload.h"

#define LOAD_MAX_TIME_S  3600.0   /* what our responder allows by default */
#define LOAD_INTERVAL_S  0.25

struct QfNetLoad
{
  QfBwConfig  config;
  char       *host;
  char       *iface;
  QfBwClient *client;
  GThread    *thread;
  gint        cancel;
  gint        intervals;   /* atomic: intervals with data moving */
  gint        ended;       /* atomic: the client returned */
  gboolean    ok;
  GError     *error;
  QfBwResult  result;
};

/* On the load's thread. */
static void
on_interval (const QfBwInterval       *interval,
             const QfBwStreamInterval *streams,
             guint                     n_streams,
             gpointer                  user_data)
{
  QfNetLoad *self = user_data;

  if (interval->mbps > 0)
    g_atomic_int_inc (&self->intervals);
}

static gpointer
load_thread (gpointer data)
{
  QfNetLoad *self = data;

  self->ok = qf_bw_client_run (self->client, &self->cancel, &self->result, &self->error);
  g_atomic_int_set (&self->ended, 1);
  return NULL;
}

static void
net_load_free (QfNetLoad *self)
{
  g_clear_pointer (&self->client, qf_bw_client_free);
  g_clear_error (&self->error);
  qf_bw_result_clear (&self->result);
  g_bytes_unref (self->config.token);
  g_free (self->host);
  g_free (self->iface);
  g_free (self);
}

QfNetLoad *
qf_net_load_start (const QfBwConfig  *config,
                   GError           **error)
{
  QfNetLoad *self;

  g_return_val_if_fail (config != NULL && config->host != NULL, NULL);

  self = g_new0 (QfNetLoad, 1);
  self->config = *config;
  self->host = g_strdup (config->host);
  self->iface = g_strdup (config->iface);
  self->config.host = self->host;
  self->config.iface = self->iface;
  self->config.token = config->token != NULL ? g_bytes_ref (config->token) : NULL;
  self->config.time_s = config->time_s > 0 ? MIN (config->time_s, LOAD_MAX_TIME_S) : LOAD_MAX_TIME_S;
  self->config.interval_s = LOAD_INTERVAL_S;
  self->config.ring = NULL;
  self->config.on_interval = on_interval;
  self->config.user_data = self;
  self->client = qf_bw_client_new (&self->config, error);
  if (self->client == NULL)
    {
      net_load_free (self);
      return NULL;
    }
  self->thread = g_thread_new ("qf-netload", load_thread, self);
  return self;
}

gboolean
qf_net_load_wait (QfNetLoad   *self,
                  gdouble      min_s,
                  gdouble      timeout_s,
                  const gint  *cancel,
                  GError     **error)
{
  gint want = MAX (1, (gint) (min_s / LOAD_INTERVAL_S + 0.5));
  gint64 deadline = qf_clock_now_ns () + (gint64) (timeout_s * QF_NSEC_PER_SEC);

  g_return_val_if_fail (self != NULL, FALSE);

  while (g_atomic_int_get (&self->intervals) < want)
    {
      if (g_atomic_int_get (&self->ended))
        {
          g_thread_join (self->thread);
          self->thread = NULL;
          if (self->error != NULL)
            g_propagate_error (error, g_steal_pointer (&self->error));
          else
            g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                         _("The load on the link ended before the measurement began"));
          return FALSE;
        }
      if (cancel != NULL && g_atomic_int_get (cancel))
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped"));
          return FALSE;
        }
      if (qf_clock_now_ns () >= deadline)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                       _("The load on the link moved no data within %.0f s: does the helper's "
                         "bandwidth service (port %u) answer?"),
                       timeout_s, self->config.port ? self->config.port : 5201);
          return FALSE;
        }
      g_usleep (20 * 1000);
    }
  return TRUE;
}

gboolean
qf_net_load_running (QfNetLoad *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->thread != NULL && !g_atomic_int_get (&self->ended);
}

gboolean
qf_net_load_stop (QfNetLoad   *self,
                  QfBwResult  *result,
                  GError     **error)
{
  gboolean ended_early, ok;

  g_return_val_if_fail (self != NULL, FALSE);

  ended_early = self->thread == NULL || g_atomic_int_get (&self->ended);
  g_atomic_int_set (&self->cancel, 1);
  if (self->thread != NULL)
    g_thread_join (self->thread);
  self->thread = NULL;
  if (result != NULL)
    {
      *result = self->result;
      memset (&self->result, 0, sizeof self->result);
    }
  ok = !ended_early || self->ok;
  if (!ok && self->error != NULL)
    g_propagate_error (error, g_steal_pointer (&self->error));
  else if (!ok)
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                 _("The load on the link ended before the measurement did"));
  net_load_free (self);
  return ok;
}

gboolean
qf_net_load_parse (const char   *text,
                   QfBwProtocol *protocol,
                   guint64      *rate_bps)
{
  g_return_val_if_fail (text != NULL && protocol != NULL && rate_bps != NULL, FALSE);

  if (g_ascii_strcasecmp (text, "tcp") == 0)
    {
      *protocol = QF_BW_TCP;
      *rate_bps = 0;
      return TRUE;
    }
  if (g_ascii_strncasecmp (text, "udp:", 4) != 0 || !qf_bw_parse_rate (text + 4, rate_bps)
      || *rate_bps < 1000)
    return FALSE;
  *protocol = QF_BW_UDP;
  return TRUE;
}
