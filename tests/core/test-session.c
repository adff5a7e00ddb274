/* test-session.c — sessions: JSON round trip unchanged, atomic saves, resume keeps finished steps,
 * verdicts and advice from the audit, samples decimated, comparison with an earlier session of
 * the same PC (tests/core). */
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "qf-advice.h"
#include "qf-json.h"
#include "qf-profile.h"
#include "qf-session-check.h"
#include "qf-session.h"
#include "qf-test-net-check.h"
#include "qf-test-release.h"

static JsonObject *
parse (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return json_node_dup_object (json_parser_get_root (parser));
}

static char *
fixture_root (const char *pc)
{
  return g_test_build_filename (G_TEST_DIST, "core", "fixtures", pc, NULL);
}

/* A session of the quick wired profile on the stock-desktop fixture PC. */
static QfSession *
new_session (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = qf_profile_find ("arcs-wired-quick", &error);
  g_autofree char *root = fixture_root ("stock-desktop");
  QfSession *session;

  g_assert_no_error (error);
  session = qf_session_new (profile);
  qf_session_set_people (session, "Li Wei", "ACME Robotics", "Hall 3");
  qf_session_set_peer (session, "192.0.2.7", "remote");
  qf_session_set_network (session, "eth0", "wired", 100, 1, NULL, -1);
  g_assert_true (qf_session_capture_system (session, root, &error));
  g_assert_no_error (error);
  return session;
}

static gint
step_index (QfSession  *session,
            const char *key)
{
  gint i = qf_session_find_step (session, key);
  g_assert_cmpint (i, >=, 0);
  return i;
}

static void
finish_rt (QfSession  *session,
           const char *result_text)
{
  g_autoptr(JsonObject) result = parse (result_text);
  g_autoptr(GError) error = NULL;
  guint rt = step_index (session, "rt");

  g_assert_true (qf_session_begin_step (session, rt, &error));
  g_assert_true (qf_session_finish_step (session, rt, QF_STEP_STATUS_DONE, result, FALSE, NULL, NULL, 1.0, &error));
  g_assert_no_error (error);
}

static char *
make_dir (void)
{
  return g_dir_make_tmp ("qf-session-XXXXXX", NULL);
}

static guint
count_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static char *
read_file (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "session.json", NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static const char *rt_result =
  "{\"test\": \"rt\", \"valid\": true, \"reason\": \"\", \"policy\": \"SCHED_FIFO\", \"priority\": 99, "
  "\"min_us\": 13.5, \"avg_us\": 104.2, \"max_us\": 7000, \"dma_latency_held\": true, "
  "\"histogram\": {\"bucket_us\": [13, 104, 7000], \"count\": [1, 998, 1], \"overflow\": 0}}";

static void
test_round_trip (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(QfSession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = make_dir ();
  g_autofree char *first = NULL, *second = NULL, *again = NULL;

  g_assert_true (qf_session_set_dir (session, dir, &error));
  finish_rt (session, rt_result);
  first = read_file (dir);
  g_assert_cmpuint (count_files (dir), ==, 1);  /* no temp file left behind */

  loaded = qf_session_load (dir, &error);
  g_assert_no_error (error);
  second = qf_session_to_data (loaded);
  g_assert_cmpstr (first, ==, second);
  g_assert_true (qf_session_save (loaded, &error));
  again = read_file (dir);
  g_assert_cmpstr (first, ==, again);

  /* the engine's result is stored unchanged */
  {
    JsonObject *result = qf_json_get_object (qf_session_get_step (loaded, step_index (loaded, "rt")), "result");
    g_autoptr(JsonObject) original = parse (rt_result);
    g_autofree char *a = qf_json_to_text (result, FALSE);
    g_autofree char *b = qf_json_to_text (original, FALSE);
    g_assert_cmpstr (a, ==, b);
  }
  g_assert_cmpstr (qf_json_get_string (qf_session_get_json (loaded), "customer", NULL), ==, "ACME Robotics");
  g_assert_cmpstr (qf_session_get_id (loaded), ==, qf_session_get_id (session));
  g_assert_cmpstr (qf_profile_get_id (qf_session_get_profile (loaded)), ==, "arcs-wired-quick");
}

static void
test_refuses_other_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) other = parse ("{\"format\": \"something\", \"id\": \"x\"}");
  g_autoptr(JsonObject) newer = parse ("{\"format\": \"qualify-session\", \"schema_version\": 99}");
  g_autoptr(QfSession) a = qf_session_new_from_json (other, "a.json", &error);

  g_assert_null (a);
  g_assert_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT);
  g_clear_error (&error);
  g_assert_null (qf_session_new_from_json (newer, "b.json", &error));
  g_assert_nonnull (strstr (error->message, "newer Qualify"));
}

static void
test_verdicts_and_advice (void)
{
  g_autoptr(QfSession) session = new_session ();
  JsonArray *advice;
  JsonObject *first;
  const char *text;
  guint warnings = 0;

  g_assert_cmpint (qf_session_get_overall (session, NULL), ==, QF_OVERALL_INCOMPLETE);
  finish_rt (session, rt_result);
  g_assert_cmpint (qf_session_get_overall (session, &warnings), ==, QF_OVERALL_FAIL);
  g_assert_cmpuint (warnings, ==, 1);   /* max 7000 µs > 2335 µs is a warning */

  advice = qf_session_get_advice (session);
  g_assert_cmpuint (json_array_get_length (advice), ==, 2);
  first = json_array_get_object_element (advice, 0);
  g_assert_cmpstr (qf_json_get_string (first, "verdict", NULL), ==, "fail");
  text = qf_json_get_string (first, "text", NULL);
  g_test_message ("advice: %s", text);
  g_assert_true (g_str_has_prefix (text, "Average latency 104 µs is above the limit of 32 µs."));
  /* ranked from the audit of the fixture PC: kernel first, then idle states, then the governor */
  g_assert_nonnull (strstr (text, "the kernel is not PREEMPT_RT"));
  g_assert_nonnull (strstr (text, "powersave on 4 of 4 CPUs"));
  g_assert_true (strstr (text, "PREEMPT_RT") < strstr (text, "idle states"));
  g_assert_true (strstr (text, "idle states") < strstr (text, "powersave"));
  g_assert_nonnull (strstr (text, "Fix: "));
  g_assert_cmpstr (qf_json_get_string (json_array_get_object_element (qf_json_get_array (first, "causes"), 0), "id", NULL),
                   ==, "kernel.preempt");
}

/* The whole text of the advice, with each cause's fix. */
static char *
advice_text (JsonArray *advice)
{
  GString *all = g_string_new (NULL);

  for (guint i = 0; advice != NULL && i < json_array_get_length (advice); i++)
    {
      JsonObject *a = json_array_get_object_element (advice, i);
      JsonArray *causes = qf_json_get_array (a, "causes");

      g_string_append_printf (all, "%s\n", qf_json_get_string (a, "text", ""));
      for (guint c = 0; causes != NULL && c < json_array_get_length (causes); c++)
        g_string_append_printf (all, "  %s\n", qf_json_get_string (json_array_get_object_element (causes, c),
                                                                   "fix", ""));
    }
  return g_string_free (all, FALSE);
}

/* The session records the release as pc.os, and the advice for a failing latency on a
 * non-real-time kernel names the way to a PREEMPT_RT kernel that release has: from the audit,
 * and from pc alone when the session has no audit. */
static void
test_release_advice (void)
{
  for (gsize r = 0; r < G_N_ELEMENTS (qf_test_releases); r++)
    {
      const QfTestRelease *release = &qf_test_releases[r];
      char *root = qf_test_release_root ("stock-desktop", release);
      g_autoptr(GError) error = NULL;
      g_autoptr(QfProfile) profile = qf_profile_find ("arcs-wired-quick", &error);
      g_autoptr(QfSession) session = qf_session_new (profile);
      g_autoptr(JsonObject) no_audit = NULL;
      g_autoptr(JsonArray) advice = NULL;
      g_autofree char *text = NULL, *text_no_audit = NULL;
      JsonObject *os;

      g_assert_true (qf_session_capture_system (session, root, &error));
      g_assert_no_error (error);
      os = qf_json_get_object (qf_json_get_object (qf_session_get_json (session), "pc"), "os");
      g_assert_nonnull (os);
      g_assert_cmpstr (qf_json_get_string (os, "id", NULL), ==, release->id);
      g_assert_cmpstr (qf_json_get_string (os, "version_id", NULL), ==, release->version_id);
      g_assert_cmpstr (qf_json_get_string (os, "pretty_name", NULL), ==, release->pretty_name);

      finish_rt (session, rt_result);
      text = advice_text (qf_session_get_advice (session));
      g_test_message ("%s: %s", release->codename, text);
      g_assert_nonnull (strstr (text, release->install));
      g_assert_null (strstr (text, release->never));

      no_audit = qf_json_object_deep_copy (qf_session_get_json (session));
      json_object_remove_member (no_audit, "audit");
      advice = qf_advice_build (no_audit);
      text_no_audit = advice_text (advice);
      g_test_message ("%s without the audit: %s", release->codename, text_no_audit);
      g_assert_nonnull (strstr (text_no_audit, "PREEMPT_RT"));
      g_assert_nonnull (strstr (text_no_audit, release->install));
      g_assert_null (strstr (text_no_audit, release->never));
      qf_test_release_root_free (root);
    }
}

static void
test_invalid_rt (void)
{
  g_autoptr(QfSession) session = new_session ();

  finish_rt (session, "{\"valid\": false, \"reason\": \"measured without real-time priority\", \"policy\": \"SCHED_OTHER\", "
                      "\"min_us\": 1, \"avg_us\": 2, \"max_us\": 3}");
  g_assert_cmpint (qf_session_get_overall (session, NULL), ==, QF_OVERALL_INVALID);
  g_assert_nonnull (strstr (qf_json_get_string (json_array_get_object_element (qf_session_get_advice (session), 0), "text", NULL),
                            "without real-time priority"));
}

static void
test_network_advice (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(JsonObject) result = parse ("{\"test\": \"ping\", \"avg_ms\": 0.9, \"min_ms\": 0.3, \"max_ms\": 2.5, \"loss_pct\": 2}");
  gint ping = step_index (session, "ping");
  const char *text;

  qf_session_begin_step (session, ping, NULL);
  qf_session_finish_step (session, ping, QF_STEP_STATUS_DONE, result, FALSE, NULL, NULL, 0.2, NULL);
  text = qf_json_get_string (json_array_get_object_element (qf_session_get_advice (session), 0), "text", NULL);
  g_test_message ("advice: %s", text);
  g_assert_nonnull (strstr (text, "Average round trip 0.900 ms is above the limit of 0.476 ms."));
  g_assert_nonnull (strstr (text, "lost"));
  g_assert_nonnull (strstr (text, "USB"));
  g_assert_nonnull (strstr (text, "100 Mbit/s"));

  /* No network audit recorded (an older session): what the interface facts measured only, never
   * a guess from the interface's kind such as Wi-Fi power saving. */
  qf_session_set_network (session, "wlan0", "wireless", 0, 0, "Lab", 35);
  text = qf_json_get_string (json_array_get_object_element (qf_session_get_advice (session), 0), "text", NULL);
  g_assert_nonnull (strstr (text, "Wi-Fi signal is weak (35 %)"));
  g_assert_null (strstr (text, "power saving"));
  g_assert_null (strstr (text, "USB"));
}

typedef struct
{
  const char *id;
  const char *title;
  const char *bad;        /* found when the finding is there */
  const char *good;       /* found when it is not */
  const char *fix;
  const char *fix_nm;
} NetFinding;

static const NetFinding net_findings[] = {
  { "eee", "Energy-Efficient Ethernet", "on, active on the link", "off",
    "ethtool --set-eee eth0 eee off", NULL },
  { "coalescing", "Interrupt coalescing", "rx 50 µs / 0 frames, tx 50 µs / 0 frames, adaptive rx on, tx off",
    "rx 0 µs / 0 frames, tx 0 µs / 0 frames, adaptive rx off, tx off",
    "ethtool -C eth0 adaptive-rx off rx-usecs 0",
    "nmcli connection modify eth0 ethtool.coalesce-adaptive-rx 0 ethtool.coalesce-rx-usecs 0" },
  { "wifi-power-save", "Wi-Fi power saving", "NetworkManager: on; driver: on", "NetworkManager: off; driver: off",
    "iw dev eth0 set power_save off", "nmcli connection modify eth0 802-11-wireless.powersave 2" },
  { "link-speed", "Link speed", "100 Mbit/s", "1000 Mbit/s", "ethtool eth0", NULL },
  { "duplex", "Duplex and autonegotiation", "half duplex, autonegotiation off", "full duplex, autonegotiation on",
    "ethtool -s eth0 autoneg on", "nmcli connection modify eth0 802-3-ethernet.auto-negotiate yes" },
  { "irq-affinity", "Interrupt and receive CPUs", "IRQ 30 on CPUs 3; isolated CPUs 3", "none on the isolated CPUs 3",
    "echo 0-2 > /proc/irq/30/smp_affinity_list\necho 7 > /sys/class/net/eth0/queues/rx-0/rps_cpus", NULL },
};

/* The network audit with every finding as it is when fine, except the one at index bad (none
 * when bad < 0), which is found as status says. */
static JsonArray *
net_audit (gint        bad,
           const char *status)
{
  JsonArray *checks = json_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (net_findings); i++)
    {
      const NetFinding *f = &net_findings[i];
      gboolean is_bad = (gint) i == bad;

      json_array_add_object_element (checks, qf_test_net_check (f->id, f->title, is_bad ? status : "ok",
                                                                is_bad ? f->bad : f->good, "as recommended",
                                                                is_bad ? f->fix : "",
                                                                is_bad ? f->fix_nm : NULL));
    }
  return checks;
}

/* The advice of a session whose ping failed (no loss), with that network audit recorded, on a
 * wired link the interface facts measured at 1000 Mbit/s on the mainboard (gigabit) or, as
 * new_session has it, at 100 Mbit/s on USB. */
static JsonObject *
ping_advice (JsonArray *audit,
             gboolean   gigabit)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(JsonObject) result = parse ("{\"test\": \"ping\", \"avg_ms\": 0.9, \"min_ms\": 0.3, \"max_ms\": 2.5, \"loss_pct\": 0}");
  gint ping = step_index (session, "ping");
  JsonArray *advice;

  if (gigabit)
    qf_session_set_network (session, "eth0", "wired", 1000, 0, NULL, -1);
  if (audit != NULL)
    qf_session_set_network_audit (session, "eth0", audit);
  qf_session_begin_step (session, ping, NULL);
  qf_session_finish_step (session, ping, QF_STEP_STATUS_DONE, result, FALSE, NULL, NULL, 0.2, NULL);
  advice = qf_session_get_advice (session);
  g_assert_cmpuint (json_array_get_length (advice), >=, 1);
  return json_object_ref (json_array_get_object_element (advice, 0));
}

static gboolean
has_cause (JsonObject *advice,
           const char *id)
{
  JsonArray *causes = qf_json_get_array (advice, "causes");

  for (guint i = 0; causes != NULL && i < json_array_get_length (causes); i++)
    if (g_strcmp0 (qf_json_get_string (json_array_get_object_element (causes, i), "id", NULL), id) == 0)
      return TRUE;
  return FALSE;
}

/* Each finding of the network audit (warn or fail) becomes a cause naming what was read, with
 * the audit's fix and command; the findings that were fine are not named. */
static void
test_network_advice_from_findings (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (net_findings); i++)
    for (guint s = 0; s < 2; s++)
      {
        const NetFinding *f = &net_findings[i];
        g_autoptr(JsonObject) advice = ping_advice (net_audit (i, s == 0 ? "warn" : "fail"), TRUE);
        const char *text = qf_json_get_string (advice, "text", NULL);
        g_autofree char *named = g_strdup_printf ("%s: %s", f->title, f->bad);

        g_test_message ("%s (%s): %s", f->id, s == 0 ? "warn" : "fail", text);
        g_assert_true (has_cause (advice, f->id));
        g_assert_nonnull (strstr (text, named));
        for (guint j = 0; j < G_N_ELEMENTS (net_findings); j++)
          if (j != i)
            {
              g_assert_false (has_cause (advice, net_findings[j].id));
              g_assert_null (strstr (text, net_findings[j].title));
            }
      }
}

/* The fix of the leading network finding: the audit's words and the command that survives a
 * reboot when NetworkManager can hold the setting, otherwise the plain command, every line. */
static void
test_network_advice_fix_commands (void)
{
  g_autoptr(JsonObject) eee = ping_advice (net_audit (0, "fail"), TRUE);
  g_autoptr(JsonObject) coalescing = ping_advice (net_audit (1, "fail"), TRUE);
  g_autoptr(JsonObject) irq = ping_advice (net_audit (5, "fail"), TRUE);

  g_assert_nonnull (strstr (qf_json_get_string (eee, "fix", ""),
                            "What the audit advises. Command: ethtool --set-eee eth0 eee off"));
  g_assert_nonnull (strstr (qf_json_get_string (coalescing, "fix", ""),
                            "Command: nmcli connection modify eth0 ethtool.coalesce-adaptive-rx 0"));
  g_assert_nonnull (strstr (qf_json_get_string (irq, "fix", ""),
                            "Command: echo 0-2 > /proc/irq/30/smp_affinity_list; echo 7 > "));
}

/* An audit where everything is fine names no network cause at all; a wireless session whose
 * audit read power saving off says nothing about power saving; an audit's link speed replaces
 * the interface facts' figure. */
static void
test_network_advice_absent_findings (void)
{
  g_autoptr(JsonObject) fine = ping_advice (net_audit (-1, NULL), TRUE);
  g_autoptr(JsonObject) usb = ping_advice (net_audit (-1, NULL), FALSE);
  JsonArray *causes = qf_json_get_array (fine, "causes");
  const char *text = qf_json_get_string (usb, "text", NULL);

  for (guint i = 0; causes != NULL && i < json_array_get_length (causes); i++)
    g_assert_cmpstr (qf_json_get_string (json_array_get_object_element (causes, i), "source", NULL), !=, "network");
  g_assert_null (strstr (qf_json_get_string (fine, "text", ""), "power saving"));

  /* The facts say 100 Mbit/s on USB, the audit read 1000 Mbit/s: only the USB fact remains. */
  g_test_message ("advice: %s", text);
  g_assert_null (strstr (text, "100 Mbit/s"));
  g_assert_nonnull (strstr (text, "USB"));
}

static void
test_resume_keeps_done_steps (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(QfSession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *base = make_dir ();
  g_autofree char *dir = g_build_filename (base, "interrupted", NULL);
  g_autoptr(QfSession) unfinished = NULL;
  g_autofree char *started = NULL;
  gint ping = step_index (session, "ping");
  guint remaining;

  g_assert_true (qf_session_set_dir (session, dir, &error));
  finish_rt (session, rt_result);
  started = g_strdup (qf_json_get_string (qf_session_get_step (session, 0), "started_at", NULL));
  /* the process dies while ping runs */
  g_assert_true (qf_session_begin_step (session, ping, &error));

  /* the wizard finds it to offer Resume */
  unfinished = qf_session_find_unfinished (base);
  g_assert_nonnull (unfinished);
  g_assert_cmpstr (qf_session_get_id (unfinished), ==, qf_session_get_id (session));

  loaded = qf_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (qf_session_get_state (loaded), ==, "running");
  g_assert_cmpint (qf_session_get_step_status (loaded, ping), ==, QF_STEP_STATUS_RUNNING);
  remaining = qf_session_prepare_resume (loaded);
  g_assert_cmpuint (remaining, ==, qf_session_get_n_steps (loaded) - 1);
  g_assert_cmpint (qf_session_get_step_status (loaded, 0), ==, QF_STEP_STATUS_DONE);
  g_assert_cmpstr (qf_json_get_string (qf_session_get_step (loaded, 0), "started_at", NULL), ==, started);
  g_assert_cmpint (qf_session_get_step_status (loaded, ping), ==, QF_STEP_STATUS_PENDING);
  g_assert_nonnull (qf_json_get_object (qf_session_get_step (loaded, 0), "result"));
}

static void
test_samples_decimated (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(JsonObject) result = parse (rt_result);
  JsonObject *samples;
  JsonArray *values;
  QfSample batch[100];
  gint64 max_seen = 0;

  qf_session_begin_step (session, 0, NULL);
  for (guint i = 0; i < 100; i++)
    {
      for (guint k = 0; k < 100; k++)
        {
          guint n = i * 100 + k;
          batch[k].t_ns = 1000000000 + (gint64) n * 1000000;
          batch[k].value_ns = n == 7777 ? 7000000 : 50000 + (n % 13) * 1000;
          batch[k].channel = 0;
          batch[k].flags = 0;
        }
      qf_session_record_samples (session, 0, 1000000000, batch, 100, 0);
    }
  qf_session_finish_step (session, 0, QF_STEP_STATUS_DONE, result, FALSE, NULL, NULL, 10, NULL);
  samples = qf_json_get_object (qf_session_get_step (session, 0), "samples");
  g_assert_nonnull (samples);
  g_assert_cmpint (json_object_get_int_member (samples, "recorded"), ==, 10000);
  values = json_object_get_array_member (samples, "value_ns");
  g_assert_cmpuint (json_array_get_length (values), <=, 4000);
  g_assert_cmpuint (json_array_get_length (values), ==,
                    json_array_get_length (json_object_get_array_member (samples, "t_ns")));
  for (guint i = 0; i < json_array_get_length (values); i++)
    max_seen = MAX (max_seen, json_array_get_int_element (values, i));
  g_assert_cmpint (max_seen, ==, 7000000);  /* the spike survives decimation */
  /* times are relative to the step start and increase */
  {
    JsonArray *t = json_object_get_array_member (samples, "t_ns");
    g_assert_cmpint (json_array_get_int_element (t, 0), ==, 0);
    for (guint i = 1; i < json_array_get_length (t); i++)
      g_assert_cmpint (json_array_get_int_element (t, i), >=, json_array_get_int_element (t, i - 1));
  }
}

/* A day-long step reports progress four times a second: what the session keeps stays bounded,
 * covers the whole step, and the saved file is one Qualify reads back. */
static void
test_long_step_bounded (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(JsonObject) result = parse (rt_result);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("qf-session-long-XXXXXX", NULL);
  g_autofree char *file = NULL, *data = NULL;
  g_autoptr(QfSession) back = NULL;
  JsonArray *progress, *live;
  gsize length = 0;

  qf_session_begin_step (session, 0, NULL);
  for (guint i = 0; i < 24 * 3600 * 4; i++)
    {
      g_autoptr(JsonObject) figures = json_object_new ();
      json_object_set_double_member (figures, "max_us", 40.0 + i % 17);
      json_object_set_double_member (figures, "avg_us", 12.5);
      json_object_set_double_member (figures, "cycles", (gdouble) i * 1000.0);
      qf_session_record_progress (session, 0, i / 4.0, i / (24.0 * 3600 * 4), figures);
    }
  qf_session_finish_step (session, 0, QF_STEP_STATUS_DONE, result, FALSE, NULL, NULL, 86400, NULL);
  progress = qf_json_get_array (qf_session_get_step (session, 0), "progress");
  live = qf_json_get_array (qf_session_get_step (session, 0), "live");
  g_assert_cmpuint (json_array_get_length (progress), <=, 1024);
  g_assert_cmpuint (json_array_get_length (live), <=, 1024);
  g_assert_cmpuint (json_array_get_length (progress), >=, 512);
  /* the first and the last report stay: a replay covers the whole step */
  g_assert_cmpfloat (json_array_get_double_element (json_array_get_array_element (progress, 0), 0), ==, 0.0);
  g_assert_cmpfloat (json_array_get_double_element (
                       json_array_get_array_element (progress, json_array_get_length (progress) - 1), 0),
                     ==, (24 * 3600 * 4 - 1) / 4.0);
  for (guint i = 1; i < json_array_get_length (live); i++)
    g_assert_cmpfloat (json_array_get_double_element (json_array_get_array_element (live, i), 0), >,
                       json_array_get_double_element (json_array_get_array_element (live, i - 1), 0));

  g_assert_true (qf_session_set_dir (session, dir, &error));
  g_assert_no_error (error);
  g_assert_true (qf_session_save (session, &error));
  g_assert_no_error (error);
  file = g_build_filename (qf_session_get_dir (session), "session.json", NULL);
  g_assert_true (g_file_get_contents (file, &data, &length, NULL));
  g_assert_cmpuint (length, <, QF_SESSION_MAX_FILE_BYTES / 8);
  back = qf_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  g_unlink (file);
  g_rmdir (qf_session_get_dir (session));
  g_rmdir (dir);
}

/* Text Qualify did not type reaches a session (a peer's error message, a driver's name): what it
 * saves is always a session it reads back, with the bad characters shown as U+FFFD. */
static void
test_foreign_text_scrubbed (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) step_error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                                                       "peer said \x1b[31mno\x1b[0m \xff\xfe");
  g_autofree char *dir = g_dir_make_tmp ("qf-session-scrub-XXXXXX", NULL);
  g_autofree char *file = NULL;
  g_autoptr(QfSession) back = NULL;
  GString *long_text = g_string_new (NULL);
  g_autoptr(JsonObject) result = parse (rt_result);
  const char *message, *driver;

  for (guint i = 0; i < QF_SESSION_MAX_TEXT_CHARS + 10; i++)
    g_string_append_c (long_text, 'a');
  json_object_set_string_member (result, "driver", long_text->str);
  g_string_free (long_text, TRUE);
  qf_session_begin_step (session, 0, NULL);
  qf_session_finish_step (session, 0, QF_STEP_STATUS_FAILED, result, FALSE, step_error, NULL, 1, NULL);
  g_assert_true (qf_session_set_dir (session, dir, &error));
  g_assert_no_error (error);
  file = g_build_filename (qf_session_get_dir (session), "session.json", NULL);
  back = qf_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  message = qf_json_get_string (qf_json_get_object (qf_session_get_step (back, 0), "error"), "message", "");
  g_assert_true (g_utf8_validate (message, -1, NULL));
  g_assert_null (strchr (message, '\x1b'));
  g_assert_nonnull (strstr (message, "\xef\xbf\xbd[31mno"));
  driver = qf_json_get_string (qf_json_get_object (qf_session_get_step (back, 0), "result"), "driver", "");
  g_assert_cmpuint (g_utf8_strlen (driver, -1), ==, QF_SESSION_MAX_TEXT_CHARS);
  g_assert_true (g_str_has_suffix (driver, "\xe2\x80\xa6"));
  g_unlink (file);
  g_rmdir (qf_session_get_dir (session));
  g_rmdir (dir);
}

static void
test_comparison (void)
{
  g_autofree char *base = make_dir ();
  g_autofree char *dir1 = g_build_filename (base, "one", NULL);
  g_autofree char *dir2 = g_build_filename (base, "two", NULL);
  g_autoptr(QfSession) first = new_session ();
  g_autoptr(QfSession) second = new_session ();
  g_autoptr(GError) error = NULL;
  JsonObject *comparison;
  JsonArray *metrics;
  gboolean found = FALSE;

  g_assert_true (qf_session_set_dir (first, dir1, &error));
  finish_rt (first, rt_result);
  g_assert_true (qf_session_finish (first, FALSE, base, &error));
  g_assert_true (qf_json_get_object (qf_session_get_json (first), "comparison") == NULL);

  g_assert_true (qf_session_set_dir (second, dir2, &error));
  finish_rt (second, "{\"valid\": true, \"policy\": \"SCHED_FIFO\", \"min_us\": 5, \"avg_us\": 20.2, \"max_us\": 300}");
  /* the audit changed too: the governor was switched to performance */
  {
    JsonArray *checks = qf_json_get_array (qf_json_get_object (qf_session_get_json (second), "audit"), "checks");
    for (guint i = 0; i < json_array_get_length (checks); i++)
      {
        JsonObject *c = json_array_get_object_element (checks, i);
        if (g_str_equal (qf_json_get_string (c, "id", ""), "cpu.governor"))
          {
            json_object_set_string_member (c, "value", "performance on 4 of 4 CPUs");
            json_object_set_string_member (c, "status", "ok");
          }
      }
  }
  g_assert_true (qf_session_same_pc (first, second));
  g_assert_true (qf_session_finish (second, FALSE, base, &error));
  comparison = qf_json_get_object (qf_session_get_json (second), "comparison");
  g_assert_nonnull (comparison);
  g_assert_cmpstr (qf_json_get_string (qf_json_get_object (comparison, "previous"), "id", NULL), ==,
                   qf_session_get_id (first));
  metrics = qf_json_get_array (comparison, "metrics");
  for (guint i = 0; i < json_array_get_length (metrics); i++)
    {
      JsonObject *m = json_array_get_object_element (metrics, i);
      if (g_str_equal (qf_json_get_string (m, "key", ""), "rt") && g_str_equal (qf_json_get_string (m, "metric", ""), "avg_us"))
        {
          g_assert_cmpfloat_with_epsilon (qf_json_get_double (m, "delta", 0), 20.2 - 104.2, 1e-9);
          g_assert_cmpstr (qf_json_get_string (m, "before_verdict", NULL), ==, "fail");
          g_assert_cmpstr (qf_json_get_string (m, "after_verdict", NULL), ==, "pass");
          found = TRUE;
        }
    }
  g_assert_true (found);
  g_assert_cmpuint (json_array_get_length (qf_json_get_array (comparison, "audit_changes")), ==, 1);
  g_assert_cmpstr (qf_json_get_string (json_array_get_object_element (qf_json_get_array (comparison, "audit_changes"), 0), "after", NULL),
                   ==, "performance on 4 of 4 CPUs");
}

static void
test_default_dir (void)
{
  const char *data = g_getenv ("XDG_DATA_HOME");
  g_autoptr(QfSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id8 = NULL;
  g_autofree char *base = NULL;

  session = new_session ();
  g_assert_true (qf_session_set_dir (session, NULL, &error));
  id8 = g_strndup (qf_session_get_id (session), 8);
  base = g_path_get_basename (qf_session_get_dir (session));
  g_assert_true (g_str_has_prefix (qf_session_get_dir (session), data));
  g_assert_true (g_str_has_suffix (base, id8));
  g_assert_nonnull (strstr (base, "-desk-01-"));
}

/* A new session never takes another's folder: a default folder whose name is taken (same day,
 * host and first 8 id digits) gets "-2"; a given folder that holds a session.json is refused
 * with the file left byte for byte; an empty one is used. */
static void
test_new_dir_never_shared (void)
{
  g_autoptr(QfSession) first = new_session ();
  g_autoptr(QfSession) twin = NULL;
  g_autoptr(QfSession) other = new_session ();
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL, *before = NULL, *after = NULL;
  g_autofree char *empty = g_dir_make_tmp ("qf-session-new-XXXXXX", NULL);
  gsize before_len, after_len;

  g_assert_true (qf_session_set_new_dir (first, NULL, &error));
  twin = qf_session_new_from_json (qf_session_get_json (first), "twin", &error);
  g_assert_no_error (error);
  g_assert_true (qf_session_set_new_dir (twin, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (qf_session_get_dir (twin), !=, qf_session_get_dir (first));
  g_assert_true (g_str_has_prefix (qf_session_get_dir (twin), qf_session_get_dir (first)));
  g_assert_true (g_str_has_suffix (qf_session_get_dir (twin), "-2"));

  path = g_build_filename (qf_session_get_dir (first), "session.json", NULL);
  g_assert_true (g_file_get_contents (path, &before, &before_len, NULL));
  g_assert_false (qf_session_set_new_dir (other, qf_session_get_dir (first), &error));
  g_assert_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, qf_session_get_dir (first)));
  g_assert_null (qf_session_get_dir (other));
  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, before, before_len);
  g_clear_error (&error);

  g_assert_true (qf_session_set_new_dir (other, empty, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (qf_session_get_dir (other), ==, empty);
}

/* A session folder Qualify creates is 0700; session.json in it is 0644 (docs/security.md). */
static void
test_private_dir (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = g_dir_make_tmp ("qf-session-mode-XXXXXX", &error);
  g_autofree char *dir = g_build_filename (parent, "a", "b", NULL);
  g_autofree char *file = g_build_filename (dir, "session.json", NULL);
  GStatBuf st;

  g_assert_no_error (error);
  g_assert_true (qf_session_set_dir (session, dir, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  g_assert_cmpint (g_stat (file, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);

  g_remove (file);
  g_rmdir (dir);
  g_free (dir);
  dir = g_build_filename (parent, "a", NULL);
  g_rmdir (dir);
  g_rmdir (parent);
}

/* The CLI's interface facts from sysfs: kind, link speed, USB adapter, Wi-Fi signal. */
static void
test_network_from_sysfs (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autofree char *root = fixture_root ("net-pc");
  JsonObject *network;

  qf_session_set_network_from_sysfs (session, root, "eth1");
  network = qf_json_get_object (qf_session_get_json (session), "network");
  g_assert_cmpstr (qf_json_get_string (network, "kind", NULL), ==, "wired");
  g_assert_cmpfloat (qf_json_get_double (network, "speed_mbps", 0), ==, 100);
  g_assert_true (json_object_get_boolean_member (network, "usb"));

  qf_session_set_network_from_sysfs (session, root, "eno1");
  network = qf_json_get_object (qf_session_get_json (session), "network");
  g_assert_cmpfloat (qf_json_get_double (network, "speed_mbps", 0), ==, 1000);
  g_assert_false (json_object_get_boolean_member (network, "usb"));
  g_assert_true (json_object_get_null_member (network, "signal_pct"));

  /* As the kernel lays it out: the interface is a link into devices/, and its device link is
   * relative ("../../../2-1:1.0"), so only the path it leads to names the USB bus. */
  qf_session_set_network_from_sysfs (session, root, "eth2");
  network = qf_json_get_object (qf_session_get_json (session), "network");
  g_assert_cmpstr (qf_json_get_string (network, "kind", NULL), ==, "wired");
  g_assert_cmpfloat (qf_json_get_double (network, "speed_mbps", 0), ==, 1000);
  g_assert_true (json_object_get_boolean_member (network, "usb"));

  qf_session_set_network_from_sysfs (session, root, "wlan0");
  network = qf_json_get_object (qf_session_get_json (session), "network");
  g_assert_cmpstr (qf_json_get_string (network, "kind", NULL), ==, "wireless");
  g_assert_cmpfloat (qf_json_get_double (network, "signal_pct", -1), ==, 77);  /* 54/70 */
  g_assert_true (json_object_get_null_member (network, "usb"));
}

/* The recorded training sessions shipped in data/demo load, keep their verdicts, and say how
 * they were made. */
static void
test_demo_sessions (void)
{
  static const struct { const char *file; QfOverall overall; const char *note; } demos[] = {
    { "demo-fail.session.json", QF_OVERALL_FAIL, "builtin-peer" },
    /* every figure within the relaxed limits, but the network ones measured on loopback with
     * the built-in peer for a wired profile: not over the link, so not a pass */
    { "demo-pass.session.json", QF_OVERALL_INCOMPLETE, "profile" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (demos); i++)
    {
      g_autofree char *path = g_build_filename (g_getenv ("QUALIFY_DATADIR"), "demo", demos[i].file, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(QfSession) session = qf_session_load (path, &error);
      JsonArray *notes;
      gboolean found = FALSE;

      g_assert_no_error (error);
      g_assert_cmpint (qf_session_get_overall (session, NULL), ==, demos[i].overall);
      g_assert_cmpstr (qf_session_get_state (session), ==, "complete");
      notes = qf_json_get_array (qf_session_get_json (session), "notes");
      for (guint k = 0; k < json_array_get_length (notes); k++)
        found |= g_str_equal (qf_json_get_string (json_array_get_object_element (notes, k), "id", ""), demos[i].note);
      g_assert_true (found);
      /* recorded live data for the replay */
      g_assert_nonnull (qf_json_get_object (qf_session_get_step (session, 0), "samples"));
      g_assert_cmpuint (json_array_get_length (qf_json_get_array (qf_session_get_step (session, 0), "progress")), >, 0);
    }
}

/* The session's text with one member replaced by raw JSON text (not checked by the parser
 * here, so what a hand-edited file holds: big integers, \u0000, lone surrogates). */
static char *
variant_text (QfSession  *session,
              gboolean    in_step,
              const char *key,
              const char *raw)
{
  g_autoptr(QfSession) copy = qf_session_new_from_json (qf_session_get_json (session), "copy", NULL);
  JsonObject *target = in_step ? qf_session_get_step (copy, 0) : qf_session_get_json (copy);
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;

  json_object_set_string_member (target, key, "@@VALUE@@");
  text = qf_session_to_data (copy);
  parts = g_strsplit (text, "\"@@VALUE@@\"", 2);
  g_assert_cmpuint (g_strv_length (parts), ==, 2);
  return g_strconcat (parts[0], raw, parts[1], NULL);
}

/* Every wrong shape, number and text a hand-edited session can hold is refused by the one
 * check, naming the file and the key path, with no GLib critical (criticals are fatal here). */
static void
test_check_refuses (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autofree char *dir = make_dir ();
  g_autofree char *file = g_build_filename (dir, "session.json", NULL);
  g_autofree char *long_name = g_strnfill (201, 'x');
  g_autofree char *long_raw = g_strdup_printf ("\"%s\"", long_name);
  g_autofree char *long_text = g_strnfill (QF_SESSION_MAX_TEXT_CHARS + 1, 'y');
  g_autofree char *long_text_raw = g_strdup_printf ("{\"note\": \"%s\"}", long_text);
  struct { gboolean in_step; const char *key; const char *raw; const char *named; } cases[] = {
    { FALSE, "steps", "[5, \"x\"]", "“steps[0]”" },
    { FALSE, "notes", "[[1]]", "“notes[0]”" },
    { FALSE, "pc", "[1]", "“pc”" },
    { FALSE, "schema_version", "99999999999999999999", "“schema_version”" },
    { FALSE, "schema_version", "-1", "“schema_version”" },
    { FALSE, "schema_version", "1.5", "“schema_version”" },
    { FALSE, "operator", "\"a\\u0000b\"", "“operator”" },
    { FALSE, "customer", "\"a\\ud800b\"", "“customer”" },
    { FALSE, "site", "\"a\\u0007b\"", "“site”" },
    { FALSE, "operator", long_raw, "“operator”" },
    { FALSE, "only", "[1]", "“only[0]”" },
    { TRUE, "result", "\"x\"", "“steps[0].result”" },
    { TRUE, "result", long_text_raw, "“steps[0].result.note”" },
    { TRUE, "error", "{\"code\": 1e30}", "“steps[0].error.code”" },
    { TRUE, "progress", "[[1, \"x\"]]", "“steps[0].progress[0]”" },
    { TRUE, "live", "[[1, 2]]", "“steps[0].live[0]”" },
    { TRUE, "samples", "{\"t_ns\": [1], \"value_ns\": [], \"channel\": [0]}", "“steps[0].samples.value_ns”" },
    { TRUE, "partial", "\"yes\"", "“steps[0].partial”" },
    { TRUE, "duration_s", "1e999", "“steps[0].duration_s”" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = variant_text (session, cases[i].in_step, cases[i].key, cases[i].raw);
      g_autoptr(GError) error = NULL;
      g_autoptr(QfSession) loaded = NULL;

      g_assert_true (g_file_set_contents (file, text, -1, NULL));
      loaded = qf_session_load (dir, &error);
      g_test_message ("%s: %s", cases[i].key, error != NULL ? error->message : "(loaded)");
      g_assert_null (loaded);
      g_assert_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, file));
      g_assert_nonnull (strstr (error->message, cases[i].named));
    }
  /* the same session as written loads */
  {
    g_autofree char *text = qf_session_to_data (session);
    g_autoptr(GError) error = NULL;
    g_autoptr(QfSession) loaded = NULL;
    g_assert_true (g_file_set_contents (file, text, -1, NULL));
    loaded = qf_session_load (dir, &error);
    g_assert_no_error (error);
  }
}

/* Size and depth are refused before the file is parsed (a deep one crashed the parser). */
static void
test_check_bounds (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *file = g_build_filename (dir, "session.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) deep = g_string_new ("{\"format\": \"qualify-session\", \"x\": ");
  g_autofree char *big = NULL;

  for (guint i = 0; i < 200000; i++)
    g_string_append_c (deep, '[');
  g_assert_true (g_file_set_contents (file, deep->str, deep->len, NULL));
  g_assert_null (qf_session_load (file, &error));
  g_assert_nonnull (strstr (error->message, "32 levels"));
  g_clear_error (&error);

  big = g_malloc (QF_SESSION_MAX_FILE_BYTES + 2);
  memset (big, ' ', QF_SESSION_MAX_FILE_BYTES + 1);
  big[0] = '{';
  big[QF_SESSION_MAX_FILE_BYTES] = '}';
  g_assert_true (g_file_set_contents (file, big, QF_SESSION_MAX_FILE_BYTES + 1, NULL));
  g_assert_null (qf_session_load (file, &error));
  g_assert_nonnull (strstr (error->message, file));
  g_assert_nonnull (strstr (error->message, "16 MiB"));
}

/* Names as typed: up to 200 characters (not bytes), one line, valid text. */
static void
test_check_names (void)
{
  g_autoptr(GString) name = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < QF_SESSION_MAX_NAME_CHARS; i++)
    g_string_append (name, "é");
  g_assert_true (qf_session_check_name ("--operator", name->str, &error));
  g_assert_true (qf_session_check_name ("--operator", "café", &error));
  g_assert_true (qf_session_check_name ("--operator", NULL, &error));
  g_string_append (name, "é");
  g_assert_false (qf_session_check_name ("--operator", name->str, &error));
  g_assert_nonnull (strstr (error->message, "--operator"));
  g_assert_nonnull (strstr (error->message, "200"));
  g_clear_error (&error);
  g_assert_false (qf_session_check_name ("--site", "Hall\t3", &error));
  g_assert_nonnull (strstr (error->message, "U+0009"));
  g_clear_error (&error);
  g_assert_false (qf_session_check_name ("--customer", "caf\xe9", &error));
  g_assert_nonnull (strstr (error->message, "--customer"));
}

/* The tests a session was asked to run are kept in it; resuming counts only those. */
static void
test_resume_only (void)
{
  g_autoptr(QfSession) session = new_session ();
  g_autoptr(QfSession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = make_dir ();
  g_auto(GStrv) only = NULL;
  const char *const keys[] = { "rt", "ping", NULL };

  qf_session_set_only (session, keys);
  g_assert_true (qf_session_set_dir (session, dir, &error));
  finish_rt (session, rt_result);
  loaded = qf_session_load (dir, &error);
  g_assert_no_error (error);
  only = qf_session_get_only (loaded);
  g_assert_nonnull (only);
  g_assert_cmpstr (only[0], ==, "rt");
  g_assert_cmpstr (only[1], ==, "ping");
  g_assert_null (only[2]);
  g_assert_cmpuint (qf_session_prepare_resume (loaded), ==, 1);
}

/* The pairing-code mark belongs to the helper it was typed for: setting the same peer again
 * keeps it, another address or kind drops it (a resumed run would otherwise ask for a code the
 * new peer never needed). */
static void
test_pairing_code_follows_peer (void)
{
  g_autoptr(QfSession) session = new_session ();

  qf_session_set_pairing_code_used (session, TRUE);
  qf_session_set_peer (session, "192.0.2.7", "remote");
  g_assert_true (qf_session_get_pairing_code_used (session));
  qf_session_set_peer (session, "192.0.2.8", "remote");
  g_assert_false (qf_session_get_pairing_code_used (session));
  qf_session_set_peer (session, "192.0.2.7", "remote");
  qf_session_set_pairing_code_used (session, TRUE);
  qf_session_set_peer (session, "127.0.0.1", "builtin");
  g_assert_false (qf_session_get_pairing_code_used (session));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data = g_dir_make_tmp ("qf-session-data-XXXXXX", NULL);

  /* GLib reads the XDG directories once: set ours before anything asks. */
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/session/round-trip", test_round_trip);
  g_test_add_func ("/core/session/private-dir", test_private_dir);
  g_test_add_func ("/core/session/refuses-other-files", test_refuses_other_files);
  g_test_add_func ("/core/session/verdicts-and-advice", test_verdicts_and_advice);
  g_test_add_func ("/core/session/invalid-rt", test_invalid_rt);
  g_test_add_func ("/core/session/release-advice", test_release_advice);
  g_test_add_func ("/core/session/network-advice", test_network_advice);
  g_test_add_func ("/core/session/network-advice-from-findings", test_network_advice_from_findings);
  g_test_add_func ("/core/session/network-advice-fix-commands", test_network_advice_fix_commands);
  g_test_add_func ("/core/session/network-advice-absent-findings", test_network_advice_absent_findings);
  g_test_add_func ("/core/session/resume-keeps-done-steps", test_resume_keeps_done_steps);
  g_test_add_func ("/core/session/samples-decimated", test_samples_decimated);
  g_test_add_func ("/core/session/long-step-bounded", test_long_step_bounded);
  g_test_add_func ("/core/session/foreign-text-scrubbed", test_foreign_text_scrubbed);
  g_test_add_func ("/core/session/comparison", test_comparison);
  g_test_add_func ("/core/session/default-dir", test_default_dir);
  g_test_add_func ("/core/session/new-dir-never-shared", test_new_dir_never_shared);
  g_test_add_func ("/core/session/demo-sessions", test_demo_sessions);
  g_test_add_func ("/core/session/network-from-sysfs", test_network_from_sysfs);
  g_test_add_func ("/core/session/check-refuses", test_check_refuses);
  g_test_add_func ("/core/session/check-bounds", test_check_bounds);
  g_test_add_func ("/core/session/check-names", test_check_names);
  g_test_add_func ("/core/session/resume-only", test_resume_only);
  g_test_add_func ("/core/session/pairing-code-follows-peer", test_pairing_code_follows_peer);
  return g_test_run ();
}
