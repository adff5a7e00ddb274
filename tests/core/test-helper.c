/* test-helper.c — QfHelper (qf-helper.h): a code drawn and required, live clients listed while a
 * latency client runs on loopback, a taken port said with the program that holds it, no
 * interface up said with the fix. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "qf-helper-private.h"
#include "qf-json.h"
#include "qf-pairing.h"
#include "qf-steps.h"
#include "../qf-test-time.h"

typedef struct
{
  guint16  port;
  GBytes  *token;
  gboolean ok;
  GError  *error;
} Client;

static gpointer
latency_client (gpointer data)
{
  Client *c = data;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };
  gint cancel = 0;

  json_object_set_string_member (params, "host", "127.0.0.1");
  json_object_set_int_member (params, "port", c->port);
  json_object_set_double_member (params, "time_s", 2.0);
  ctx.cancel = &cancel;
  ctx.token = c->token;
  c->ok = qf_step_latency.run (params, &ctx, &result, &c->error);
  return NULL;
}

static gboolean
has_live_latency_client (QfHelper *helper)
{
  g_autoptr(GPtrArray) clients = qf_helper_list_clients (helper);

  for (guint i = 0; i < clients->len; i++)
    {
      QfPeerClient *client = g_ptr_array_index (clients, i);
      if (g_str_equal (client->test, "latency-tcp") && g_str_equal (client->address, "127.0.0.1")
          && client->figure > 0 && client->unit != NULL
          && client->started_us <= g_get_monotonic_time ())
        return TRUE;
    }
  return FALSE;
}

static void
test_clients_listed (void)
{
  g_autoptr(QfHelper) helper = qf_helper_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) none = NULL;
  Client c = { 0 };
  GThread *thread;
  gboolean seen = FALSE;
  gint64 deadline;

  g_assert_nonnull (qf_helper_get_name (helper));
  g_assert_true (_qf_helper_start_on_ports (helper, TRUE, "127.0.0.1", 0, 0, &error));
  g_assert_no_error (error);
  g_assert_true (qf_helper_is_running (helper));
  g_assert_cmpuint (strlen (qf_helper_get_code (helper)), ==, 19);
  g_assert_cmpuint (qf_helper_get_latency_port (helper), >, 0);
  g_assert_cmpuint (qf_helper_get_bandwidth_port (helper), >, 0);
  none = qf_helper_list_clients (helper);
  g_assert_cmpuint (none->len, ==, 0);

  /* without the code: refused */
  c.port = qf_helper_get_latency_port (helper);
  thread = g_thread_new ("test-helper-client", latency_client, &c);
  g_thread_join (thread);
  g_assert_false (c.ok);
  g_assert_error (c.error, QF_STEP_ERROR, QF_STEP_ERROR_PERMISSION);
  g_clear_error (&c.error);

  /* with it: listed with its live figure while it runs */
  c.token = qf_pairing_code_to_token (qf_helper_get_code (helper), &error);
  g_assert_no_error (error);
  thread = g_thread_new ("test-helper-client", latency_client, &c);
  deadline = g_get_monotonic_time () + qf_test_ns (5 * G_TIME_SPAN_SECOND);
  while (!seen && g_get_monotonic_time () < deadline)
    {
      seen = has_live_latency_client (helper);
      g_usleep (50 * 1000);
    }
  g_thread_join (thread);
  g_assert_no_error (c.error);
  g_assert_true (c.ok);
  g_assert_true (seen);
  g_bytes_unref (c.token);

  qf_helper_stop (helper);
  g_assert_false (qf_helper_is_running (helper));
  g_assert_null (qf_helper_get_code (helper));
  g_assert_cmpuint (qf_helper_get_latency_port (helper), ==, 0);
}

/* Why the helper is not announced, in words the helper page shows. */
static void
test_announcing_why_not (void)
{
  g_autoptr(QfHelper) helper = qf_helper_new ();
  g_autoptr(GError) error = NULL;
  const char *why = NULL;

  g_assert_false (qf_helper_is_announcing (helper, &why));
  g_assert_cmpstr (why, ==, "the helper is stopped");
  g_assert_true (_qf_helper_start_on_ports (helper, FALSE, "127.0.0.1", 0, 0, &error));
  g_assert_no_error (error);
  g_assert_false (qf_helper_is_announcing (helper, &why));
  g_assert_cmpstr (why, ==, "the helper serves on loopback only");
  qf_helper_stop (helper);
  qf_helper_set_announce (helper, FALSE);
  g_assert_true (_qf_helper_start_on_ports (helper, FALSE, "127.0.0.1", 0, 0, &error));
  g_assert_false (qf_helper_is_announcing (helper, NULL));
  g_assert_false (qf_helper_is_announcing (helper, &why));
  g_assert_cmpstr (why, ==, "discovery is turned off in the settings");
  qf_helper_stop (helper);
}

static void
test_port_in_use (void)
{
  g_autoptr(QfHelper) helper = qf_helper_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) taken = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                           G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  guint16 port;

  g_assert_no_error (error);
  g_assert_true (g_socket_bind (taken, any, FALSE, &error));
  g_assert_true (g_socket_listen (taken, &error));
  bound = g_socket_get_local_address (taken, &error);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));

  g_assert_false (_qf_helper_start_on_ports (helper, FALSE, "127.0.0.1", port, 0, &error));
  g_assert_error (error, QF_HELPER_ERROR, QF_HELPER_ERROR_PORT_IN_USE);
  /* the cause (this very program holds it) and the fix */
  g_assert_nonnull (strstr (error->message, "test-core-helper"));
  g_assert_nonnull (strstr (error->message, "Stop that program"));
  g_assert_false (qf_helper_is_running (helper));
}

static void
write_flags (const char *root,
             const char *iface,
             const char *flags)
{
  g_autofree char *dir = g_build_filename (root, iface, NULL);
  g_autofree char *path = g_build_filename (dir, "flags", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, flags, -1, NULL));
}

static void
test_no_interface (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("qf-helper-XXXXXX", &error);
  g_autofree char *rm = NULL;

  g_assert_no_error (error);
  write_flags (root, "lo", "0x9\n");
  write_flags (root, "eth0", "0x1002\n");   /* down */
  g_assert_false (_qf_helper_check_interfaces (root, &error));
  g_assert_error (error, QF_HELPER_ERROR, QF_HELPER_ERROR_NO_INTERFACE);
  g_assert_nonnull (strstr (error->message, "Plug the network cable"));
  g_clear_error (&error);
  write_flags (root, "eth0", "0x1003\n");   /* up */
  g_assert_true (_qf_helper_check_interfaces (root, &error));
  g_assert_no_error (error);
  rm = g_strdup_printf ("rm -rf '%s'", root);
  g_assert_true (g_spawn_command_line_sync (rm, NULL, NULL, NULL, NULL));
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "C");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/helper/clients-listed", test_clients_listed);
  g_test_add_func ("/core/helper/port-in-use", test_port_in_use);
  g_test_add_func ("/core/helper/announcing-why-not", test_announcing_why_not);
  g_test_add_func ("/core/helper/no-interface", test_no_interface);
  return g_test_run ();
}
