/* qf-peer-services.c — the latency responder and the bandwidth server, each on its own thread
 * (src/core). See qf-peer-services.h.
 *
 * To add a service: a state block in QfPeerServices, a bind_<name> () called from
 * qf_peer_services_bind (), its thread started in qf_peer_services_start () and joined in
 * qf_peer_services_stop () after the shared stop flag is set.
 */
#include "config.h"


#include "qf-discovery.h"
#include "qf-i18n.h"
#include "qf-iperf3.h"
#include "qf-peer-services.h"

struct QfPeerServices
{
  gint                   stop;     /* set once; every service thread polls it */
  QfPeerServicesFailFunc fail;
  gpointer               fail_data;

  /* Latency service: sockperf-style ping-pong + cycle protocol (qf-responder). */
  QfResponder           *responder;
  GThread               *responder_thread;

  /* Bandwidth service: iperf3 3.12-compatible server (qf-iperf3). */
  QfIperf3Server        *bandwidth;
  GThread               *bandwidth_thread;

  /* Discovery: the mDNS/DNS-SD announcer (qf-discovery), only with config->announce. */
  QfAnnouncer           *announcer;
  GThread               *announcer_thread;
  char                  *announce_error;    /* why it does not announce, when asked to */
};

/* On a service thread whose loop failed. */
static void
report_failure (QfPeerServices *self,
                const GError   *error)
{
  if (self->fail != NULL)
    self->fail (error, self->fail_data);
  else
    g_warning ("%s", error->message);
}

/* ---- latency service ---------------------------------------------------------------------- */

/* The bytes the bandwidth server's test has moved so far, for the emulated queue that grows with
 * load (qf-responder.h). On the responder's thread; the server is bound before either starts. */
static guint64
load_bytes (gpointer data)
{
  QfPeerServices *self = data;
  g_autoptr(GArray) clients = NULL;
  guint64 bytes = 0;

  if (self->bandwidth == NULL)
    return 0;
  clients = qf_iperf3_server_list_clients (self->bandwidth);
  for (guint i = 0; clients != NULL && i < clients->len; i++)
    bytes += g_array_index (clients, QfServedClient, i).count;
  return bytes;
}

static gboolean
bind_latency_service (QfPeerServices              *self,
                      const QfPeerServicesConfig  *config,
                      GError                     **error)
{
  QfResponderConfig responder_config = {
    .bind_address = config->bind_address,
    .latency_port = config->latency_port,
    .iface = config->iface,
    .max_clients = config->max_clients,
    .max_test_seconds = config->max_test_seconds,
    .emulate = config->emulate,
    .token = config->token,
    .allow_classic = config->allow_classic,
    .spin_all = config->spin_all,
    .log = config->log,
    .log_data = config->log_data,
    .load_bytes = config->emulate.bloat_ms > 0 ? load_bytes : NULL,
    .load_data = self,
  };

  self->responder = qf_responder_new (&responder_config, error);
  return self->responder != NULL;
}

static gpointer
responder_thread (gpointer data)
{
  QfPeerServices *self = data;
  g_autoptr(GError) error = NULL;

  if (!qf_responder_run (self->responder, &self->stop, &error))
    report_failure (self, error);
  return NULL;
}

/* ---- bandwidth service --------------------------------------------------------------------- */

static gboolean
bind_bandwidth_service (QfPeerServices              *self,
                        const QfPeerServicesConfig  *config,
                        GError                     **error)
{
  self->bandwidth = qf_iperf3_server_new (config->bind_address, config->bandwidth_port, error);
  if (self->bandwidth == NULL)
    return FALSE;
  if (config->iface != NULL && !qf_iperf3_server_bind_iface (self->bandwidth, config->iface, error))
    return FALSE;
  qf_iperf3_server_set_log (self->bandwidth, config->log, config->log_data);
  if (!qf_iperf3_server_set_token (self->bandwidth, config->token, config->allow_classic, error))
    return FALSE;
  qf_iperf3_server_set_limits (self->bandwidth, config->max_clients, config->max_test_seconds);
  return TRUE;
}

static gpointer
bandwidth_thread (gpointer data)
{
  QfPeerServices *self = data;
  g_autoptr(GError) error = NULL;

  if (!qf_iperf3_server_run (self->bandwidth, &self->stop, &error))
    report_failure (self, error);
  return NULL;
}

/* ---- discovery ------------------------------------------------------------------------------ */

/* A helper that cannot announce (port 5353 held by a program that does not share it) still
 * serves clients that know its address: the reason is kept for the caller to show. */
static void
bind_announcer (QfPeerServices             *self,
                const QfPeerServicesConfig *config)
{
  g_autoptr(GError) error = NULL;
  QfAnnouncerConfig announcer_config = {
    .name = config->announce_name,
    .latency_port = qf_responder_get_port (self->responder),
    .bandwidth_port = qf_iperf3_server_get_port (self->bandwidth),
    .token_required = config->token != NULL,
    .iface = config->iface,
    .log = config->log,
    .log_data = config->log_data,
  };

  self->announcer = qf_announcer_new (&announcer_config, &error);
  if (self->announcer == NULL)
    self->announce_error = g_strdup (error->message);
}

static gpointer
announcer_thread (gpointer data)
{
  QfPeerServices *self = data;
  g_autoptr(GError) error = NULL;

  if (!qf_announcer_run (self->announcer, &self->stop, &error))
    report_failure (self, error);
  return NULL;
}

/* ---- the services -------------------------------------------------------------------------- */

QfPeerServices *
qf_peer_services_bind (const QfPeerServicesConfig  *config,
                       GError                     **error)
{
  QfPeerServices *self;

  g_return_val_if_fail (config != NULL, NULL);

  self = g_new0 (QfPeerServices, 1);
  self->fail = config->fail;
  self->fail_data = config->fail_data;
  if (!bind_latency_service (self, config, error) || !bind_bandwidth_service (self, config, error))
    {
      qf_peer_services_stop (self);
      return NULL;
    }
  if (config->announce && config->bind_address != NULL
      && (g_str_has_prefix (config->bind_address, "127.") || g_str_equal (config->bind_address, "::1")))
    self->announce_error = g_strdup (_("the services listen on loopback only (--bind)"));
  else if (config->announce)
    bind_announcer (self, config);
  return self;
}

guint16
qf_peer_services_get_latency_port (QfPeerServices *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return qf_responder_get_port (self->responder);
}

guint16
qf_peer_services_get_bandwidth_port (QfPeerServices *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return qf_iperf3_server_get_port (self->bandwidth);
}

void
qf_peer_services_start (QfPeerServices *self)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->responder_thread == NULL && self->bandwidth_thread == NULL);

  self->responder_thread = g_thread_new ("qf-responder", responder_thread, self);
  self->bandwidth_thread = g_thread_new ("qf-bandwidth-server", bandwidth_thread, self);
  if (self->announcer != NULL)
    self->announcer_thread = g_thread_new ("qf-announcer", announcer_thread, self);
}

gboolean
qf_peer_services_is_announcing (QfPeerServices  *self,
                                const char     **why_not)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (why_not != NULL)
    *why_not = self->announce_error;
  return self->announcer != NULL;
}

void
qf_peer_services_stop (QfPeerServices *self)
{
  if (self == NULL)
    return;
  g_atomic_int_set (&self->stop, 1);
  g_clear_pointer (&self->responder_thread, g_thread_join);
  g_clear_pointer (&self->responder, qf_responder_free);
  g_clear_pointer (&self->bandwidth_thread, g_thread_join);
  g_clear_pointer (&self->bandwidth, qf_iperf3_server_free);
  g_clear_pointer (&self->announcer_thread, g_thread_join);
  g_clear_pointer (&self->announcer, qf_announcer_free);
  g_free (self->announce_error);
  g_free (self);
}

void
qf_peer_client_free (QfPeerClient *client)
{
  if (client == NULL)
    return;
  g_free (client->address);
  g_free (client->test);
  g_free (client->unit);
  g_free (client);
}

/* Adds the engine's clients with their figure so far: messages/s, or Mbit/s for bytes. */
static void
add_clients (GPtrArray *clients,
             GArray    *served)
{
  gint64 now_us = g_get_monotonic_time ();

  for (guint i = 0; i < served->len; i++)
    {
      const QfServedClient *s = &g_array_index (served, QfServedClient, i);
      QfPeerClient *client = g_new0 (QfPeerClient, 1);
      gboolean bytes = s->count_bytes;
      gdouble seconds = (s->as_of_ns - s->started_ns) / 1e9;

      client->address = g_strdup (s->address);
      client->test = g_strdup (s->test);
      /* the engines' clock is CLOCK_MONOTONIC, as g_get_monotonic_time's */
      client->started_us = MIN (s->started_ns / 1000, now_us);
      if (seconds > 0)
        client->figure = bytes ? s->count * 8.0 / seconds / 1e6 : s->count / seconds;
      client->unit = g_strdup (bytes ? _("Mbit/s") : _("msg/s"));
      g_ptr_array_add (clients, client);
    }
  g_array_unref (served);
}

GPtrArray *
qf_peer_services_list_clients (QfPeerServices *self)
{
  GPtrArray *clients = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_peer_client_free);

  g_return_val_if_fail (self != NULL, clients);

  if (self->responder != NULL)
    add_clients (clients, qf_responder_list_clients (self->responder));
  if (self->bandwidth != NULL)
    add_clients (clients, qf_iperf3_server_list_clients (self->bandwidth));
  return clients;
}
