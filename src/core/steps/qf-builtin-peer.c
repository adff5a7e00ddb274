/* qf-builtin-peer.c — the helper machine's services on loopback, each on its own thread
 * (src/core). See qf-builtin-peer.h.
 *
 * One start/stop pair per service. To add a service: a state block in QfBuiltinPeer, a
 * start_<name>_service () that binds on 127.0.0.1 port 0 and starts its thread, a
 * stop_<name>_service () that joins it after the shared stop flag is set, and one call of each
 * in qf_builtin_peer_start () / qf_builtin_peer_stop ().
 */
#include "config.h"

#include <glib/gi18n.h>

#include "qf-builtin-peer.h"
#include "qf-iperf3.h"

#define BUILTIN_HOST "127.0.0.1"

struct QfBuiltinPeer
{
  gint          stop;              /* set once; every service thread polls it */

  /* Latency service: sockperf-style ping-pong + cycle protocol (qf-responder). */
  QfResponder  *responder;
  GThread      *responder_thread;
  guint16       latency_port;

  /* Bandwidth service: iperf3 3.12-compatible server (qf-iperf3). */
  QfIperf3Server *bandwidth;
  GThread        *bandwidth_thread;
  guint16         bandwidth_port;
};

static void
log_to_debug (const char *line,
              gpointer    user_data)
{
  g_debug ("built-in peer: %s", line);
}

/* ---- latency service ---------------------------------------------------------------------- */

static gpointer
responder_thread (gpointer data)
{
  QfBuiltinPeer *self = data;
  g_autoptr(GError) error = NULL;

  if (!qf_responder_run (self->responder, &self->stop, &error))
    g_warning ("built-in peer: %s", error->message);
  return NULL;
}

static gboolean
start_latency_service (QfBuiltinPeer              *self,
                       const QfResponderEmulation *emulate,
                       GError                    **error)
{
  QfResponderConfig config = {
    .bind_address = BUILTIN_HOST,
    .latency_port = 0,
    .log = log_to_debug,
  };

  if (emulate != NULL)
    config.emulate = *emulate;
  self->responder = qf_responder_new (&config, error);
  if (self->responder == NULL)
    return FALSE;
  self->latency_port = qf_responder_get_port (self->responder);
  self->responder_thread = g_thread_new ("qf-builtin-responder", responder_thread, self);
  return TRUE;
}

static void
stop_latency_service (QfBuiltinPeer *self)
{
  g_clear_pointer (&self->responder_thread, g_thread_join);
  g_clear_pointer (&self->responder, qf_responder_free);
}

/* ---- bandwidth service --------------------------------------------------------------------- */

static gpointer
bandwidth_thread (gpointer data)
{
  QfBuiltinPeer *self = data;
  g_autoptr(GError) error = NULL;

  if (!qf_iperf3_server_run (self->bandwidth, &self->stop, &error))
    g_warning ("built-in peer: %s", error->message);
  return NULL;
}

static gboolean
start_bandwidth_service (QfBuiltinPeer  *self,
                         GError        **error)
{
  self->bandwidth = qf_iperf3_server_new (BUILTIN_HOST, 0, error);
  if (self->bandwidth == NULL)
    return FALSE;
  qf_iperf3_server_set_log (self->bandwidth, log_to_debug, self);
  self->bandwidth_port = qf_iperf3_server_get_port (self->bandwidth);
  self->bandwidth_thread = g_thread_new ("qf-builtin-bandwidth", bandwidth_thread, self);
  return TRUE;
}

static void
stop_bandwidth_service (QfBuiltinPeer *self)
{
  g_clear_pointer (&self->bandwidth_thread, g_thread_join);
  g_clear_pointer (&self->bandwidth, qf_iperf3_server_free);
}

/* ---- the peer ------------------------------------------------------------------------------ */

QfBuiltinPeer *
qf_builtin_peer_start (const QfResponderEmulation  *emulate,
                       GError                     **error)
{
  QfBuiltinPeer *self = g_new0 (QfBuiltinPeer, 1);

  if (!start_latency_service (self, emulate, error)
      || !start_bandwidth_service (self, error))
    {
      qf_builtin_peer_stop (self);
      return NULL;
    }
  return self;
}

const char *
qf_builtin_peer_get_host (QfBuiltinPeer *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return BUILTIN_HOST;
}

guint16
qf_builtin_peer_get_latency_port (QfBuiltinPeer *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->latency_port;
}

guint16
qf_builtin_peer_get_bandwidth_port (QfBuiltinPeer *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->bandwidth_port;
}

static const QfLinkPreset presets[] = {
  { "good-wired", N_("Good wired link"), { 0, 0, 0 } },
  { "poor-wireless", N_("Poor wireless link"), { 20, 15, 5 } },
  { NULL, NULL, { 0, 0, 0 } },
};

const QfLinkPreset *
qf_builtin_peer_get_presets (void)
{
  return presets;
}

const QfLinkPreset *
qf_builtin_peer_find_preset (const char *id)
{
  for (guint i = 0; id != NULL && presets[i].id != NULL; i++)
    if (g_str_equal (presets[i].id, id))
      return &presets[i];
  return NULL;
}

void
qf_builtin_peer_stop (QfBuiltinPeer *self)
{
  if (self == NULL)
    return;
  g_atomic_int_set (&self->stop, 1);
  stop_latency_service (self);
  stop_bandwidth_service (self);
  g_free (self);
}
