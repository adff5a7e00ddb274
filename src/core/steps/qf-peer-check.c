/* qf-peer-check.c — probing the helper machine for the network page (src/core).
 * See qf-peer-check.h. The probes are the real steps with tiny durations, so what answers the
 * check is what will answer the tests. */
#include "config.h"


#include "qf-auth.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-peer-check.h"
#include "qf-step.h"

#define PROBE_SECONDS 0.3

/* Runs step id against host with params; returns its result, or NULL and why. */
static JsonObject *
probe (const char  *id,
       const char  *host,
       GBytes      *token,
       JsonObject  *params,
       GError     **error)
{
  const QfStepInfo *info = qf_step_lookup (id);
  QfStepContext ctx = { 0 };
  JsonObject *result = NULL;
  gint cancel = 0;

  if (info == NULL)
    return NULL;
  ctx.cancel = &cancel;
  ctx.peer = host;
  ctx.token = token;
  if (!info->run (params, &ctx, &result, error))
    g_clear_pointer (&result, json_object_unref);
  return result;
}

JsonObject *
qf_peer_check (const char   *host,
               guint16       latency_port,
               guint16       bandwidth_port,
               const char   *token_file,
               GBytes       *token,
               GCancellable *cancellable,
               GError      **error)
{
  g_autoptr(JsonObject) answer = json_object_new ();
  g_autoptr(JsonObject) latency_params = json_object_new ();
  g_autoptr(JsonObject) cycle_params = json_object_new ();
  g_autoptr(JsonObject) latency = NULL;
  g_autoptr(JsonObject) cycle = NULL;
  g_autoptr(GSocketClient) client = NULL;
  g_autoptr(GSocketConnection) connection = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *bandwidth_text = NULL;
  g_autoptr(GError) refused = NULL;
  const char *responder = NULL;
  gdouble latency_us = 0;
  gboolean bandwidth;

  if (host == NULL || *host == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Type the helper machine's address first."));
      return NULL;
    }

  json_object_set_int_member (latency_params, "port", latency_port);
  json_object_set_double_member (latency_params, "time_s", PROBE_SECONDS);
  if (token == NULL && token_file != NULL && *token_file != '\0')
    {
      /* A token file that cannot be used is this PC's problem: said as such, before any probe. */
      g_autoptr(GBytes) loaded = qf_auth_token_load (token_file, error);
      if (loaded == NULL)
        return NULL;
      json_object_set_string_member (latency_params, "token_file", token_file);
      json_object_set_string_member (cycle_params, "token_file", token_file);
    }
  latency = probe ("latency", host, token, latency_params, &refused);
  /* Our responder answered but turned this PC away (its access token missing or wrong): that
   * is what the installer must fix, so it is the answer. */
  if (latency == NULL && g_error_matches (refused, QF_STEP_ERROR, QF_STEP_ERROR_PERMISSION))
    responder = "qualify";
  else
    g_clear_error (&refused);
  if (latency != NULL && qf_json_get_double (latency, "samples", 0) > 0)
    {
      latency_us = qf_json_get_double (latency, "avg_us", 0);
      json_object_set_int_member (cycle_params, "port", latency_port);
      json_object_set_int_member (cycle_params, "rate_hz", 100);
      json_object_set_double_member (cycle_params, "time_s", PROBE_SECONDS);
      cycle = probe ("cycle", host, token, cycle_params, NULL);
      responder = cycle != NULL && qf_json_get_double (cycle, "replies", 0) > 0 ? "qualify" : "sockperf";
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  client = g_socket_client_new ();
  g_socket_client_set_timeout (client, 2);
  connection = g_socket_client_connect_to_host (client, host, bandwidth_port, cancellable, NULL);
  bandwidth = connection != NULL;
  if (connection != NULL)
    g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  json_object_set_string_member (answer, "host", host);
  json_object_set_int_member (answer, "latency_port", latency_port);
  json_object_set_int_member (answer, "bandwidth_port", bandwidth_port);
  if (refused != NULL)
    {
      json_object_set_string_member (answer, "responder", responder);
      json_object_set_null_member (answer, "latency_us");
      json_object_set_string_member (answer, "refused", refused->message);
    }
  else if (responder != NULL)
    {
      json_object_set_string_member (answer, "responder", responder);
      json_object_set_double_member (answer, "latency_us", latency_us);
    }
  else
    {
      json_object_set_null_member (answer, "responder");
      json_object_set_null_member (answer, "latency_us");
    }
  json_object_set_boolean_member (answer, "bandwidth", bandwidth);

  bandwidth_text = bandwidth
    ? g_strdup_printf (_("a bandwidth server (iperf3 or Qualify) accepts connections on port %u"), bandwidth_port)
    : g_strdup_printf (_("nothing accepts connections on the bandwidth port %u"), bandwidth_port);
  if (refused != NULL)
    summary = g_strdup_printf (_("%s answers with Qualify's responder, but it turned this PC away: %s"),
                               host, refused->message);
  else if (g_strcmp0 (responder, "qualify") == 0)
    summary = g_strdup_printf (_("%s answers: Qualify's responder on port %u (%.0f µs one way), and %s."),
                               host, latency_port, latency_us, bandwidth_text);
  else if (g_strcmp0 (responder, "sockperf") == 0)
    summary = g_strdup_printf (_("%s answers: a sockperf server on port %u (%.0f µs one way; the control-cycle test needs “qualify-cli serve”), and %s."),
                               host, latency_port, latency_us, bandwidth_text);
  else if (bandwidth)
    summary = g_strdup_printf (_("No latency responder answers on %s port %u, but %s. Start “qualify-cli serve” there for every test."),
                               host, latency_port, bandwidth_text);
  else
    summary = g_strdup_printf (_("Nothing answers on %s (ports %u and %u). Is “qualify-cli serve” running there, and does its firewall let these ports in?"),
                               host, latency_port, bandwidth_port);
  json_object_set_string_member (answer, "summary", summary);
  return g_steal_pointer (&answer);
}

typedef struct
{
  char    *host;
  guint16  latency_port;
  guint16  bandwidth_port;
  char    *token_file;
  GBytes  *token;
} Request;

static void
request_free (Request *request)
{
  g_free (request->host);
  g_free (request->token_file);
  g_clear_pointer (&request->token, g_bytes_unref);
  g_free (request);
}

static void
check_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Request *request = task_data;
  GError *error = NULL;
  JsonObject *answer = qf_peer_check (request->host, request->latency_port, request->bandwidth_port,
                                      request->token_file, request->token, cancellable, &error);

  if (answer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
}

void
qf_peer_check_async (const char          *host,
                     guint16              latency_port,
                     guint16              bandwidth_port,
                     const char          *token_file,
                     GBytes              *token,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  Request *request = g_new0 (Request, 1);

  request->host = g_strdup (host);
  request->latency_port = latency_port;
  request->bandwidth_port = bandwidth_port;
  request->token_file = g_strdup (token_file);
  request->token = token != NULL ? g_bytes_ref (token) : NULL;
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);
  g_task_set_source_tag (task, qf_peer_check_async);
  g_task_run_in_thread (task, check_thread);
}

JsonObject *
qf_peer_check_finish (GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
