/* qf-load-rules.c — the procedure's five stress rules and the await trend (src/core).
 * See qf-load-rules.h for the rules, their limits and the exact meaning of "rising steadily". */
#include "config.h"

#include <math.h>

#include "qf-i18n.h"
#include "qf-load-rules.h"

/* ---- await trend ---- */

typedef struct
{
  gdouble slope;       /* ms per s */
  gdouble share;       /* non-decreasing steps / (n − 1) */
  gdouble rise_pct;    /* 0 unless steady */
  guint   n;
} Trend;

static Trend
fit_trend (const GArray *t,
           const GArray *a)
{
  Trend tr = { 0, 0, 0, t->len };
  gdouble st = 0, sa = 0, stt = 0, sta = 0, n = t->len, a0, rise, start;
  guint up = 0;

  if (t->len < 2)
    return tr;
  for (guint i = 0; i < t->len; i++)
    {
      gdouble ti = g_array_index (t, gdouble, i), ai = g_array_index (a, gdouble, i);
      st += ti;
      sa += ai;
      stt += ti * ti;
      sta += ti * ai;
      if (i > 0 && ai >= g_array_index (a, gdouble, i - 1))
        up++;
    }
  tr.share = (gdouble) up / (t->len - 1);
  if (n * stt - st * st <= 0)
    return tr;
  tr.slope = (n * sta - st * sa) / (n * stt - st * st);
  a0 = (sa - tr.slope * st) / n;
  rise = tr.slope * (g_array_index (t, gdouble, t->len - 1) - g_array_index (t, gdouble, 0));
  start = MAX (a0 + tr.slope * g_array_index (t, gdouble, 0), 0.1);
  if (t->len >= QF_LOAD_RULE_AWAIT_MIN_POINTS && tr.slope > 0
      && tr.share >= QF_LOAD_RULE_AWAIT_MONOTONE_SHARE && rise >= QF_LOAD_RULE_AWAIT_MIN_RISE_MS)
    tr.rise_pct = 100.0 * rise / start;
  return tr;
}

void
qf_load_rules_await_trend (JsonArray  *samples,
                           JsonObject *summary)
{
  g_autoptr(GHashTable) series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  Trend best = { 0, 0, 0, 0 };
  const char *best_name = NULL;

  g_return_if_fail (summary != NULL);

  /* name → index of its (t, await) arrays */
  for (guint i = 0; samples != NULL && i < json_array_get_length (samples); i++)
    {
      JsonObject *s = json_array_get_object_element (samples, i);
      JsonArray *disks = json_object_get_array_member (s, "disks");
      gdouble t = json_object_get_double_member (s, "t_s");

      for (guint d = 0; disks != NULL && d < json_array_get_length (disks); d++)
        {
          JsonObject *dj = json_array_get_object_element (disks, d);
          const char *name = json_object_get_string_member (dj, "name");
          gpointer idx_p;
          guint idx;
          gdouble await_ms;

          if (json_object_get_int_member (dj, "ios") <= 0)
            continue;
          if (!g_hash_table_lookup_extended (series, name, NULL, &idx_p))
            {
              idx = arrays->len;
              g_hash_table_insert (series, g_strdup (name), GUINT_TO_POINTER (idx));
              g_ptr_array_add (arrays, g_array_new (FALSE, FALSE, sizeof (gdouble)));
              g_ptr_array_add (arrays, g_array_new (FALSE, FALSE, sizeof (gdouble)));
              g_ptr_array_add (names, (gpointer) name);
            }
          else
            idx = GPOINTER_TO_UINT (idx_p);
          await_ms = json_object_get_double_member (dj, "await_ms");
          g_array_append_val (g_ptr_array_index (arrays, 2 * idx), t);
          g_array_append_val (g_ptr_array_index (arrays, 2 * idx + 1), await_ms);
        }
    }

  for (guint i = 0; i < names->len; i++)
    {
      Trend tr = fit_trend (g_ptr_array_index (arrays, 2 * i),
                            g_ptr_array_index (arrays, 2 * i + 1));
      /* The steadiest rise decides; without one, report the disk whose await grew fastest. */
      if (best_name == NULL || tr.rise_pct > best.rise_pct
          || (tr.rise_pct == best.rise_pct && tr.slope > best.slope))
        {
          best = tr;
          best_name = g_ptr_array_index (names, i);
        }
    }

  json_object_set_double_member (summary, "await_steady_rise_pct", round (best.rise_pct * 10) / 10);
  json_object_set_double_member (summary, "await_slope_ms_per_s", round (best.slope * 1000) / 1000);
  json_object_set_double_member (summary, "await_monotone_share", round (best.share * 1000) / 1000);
  json_object_set_int_member (summary, "await_points", best.n);
  if (best_name != NULL)
    json_object_set_string_member (summary, "await_disk", best_name);
  else
    json_object_set_null_member (summary, "await_disk");
}

/* ---- the five rules ---- */

typedef struct
{
  const char *id;
  const char *key;          /* in summary */
  const char *comparison;   /* "<=" or ">=" */
  gdouble     limit;
  const char *unit;
} Rule;

static const Rule rules[] = {
  { "iowait", "iowait_max_pct", "<=", QF_LOAD_RULE_IOWAIT_MAX_PCT, "%" },
  { "load", "load1_max_per_cpu", "<=", QF_LOAD_RULE_LOAD_PER_CPU_MAX, "" },
  { "disk-util", "disk_util_max_pct", "<=", QF_LOAD_RULE_DISK_UTIL_MAX_PCT, "%" },
  { "cpu-idle", "cpu_idle_min_pct", ">=", QF_LOAD_RULE_CPU_IDLE_MIN_PCT, "%" },
  { "await-rising", "await_steady_rise_pct", "<=", QF_LOAD_RULE_AWAIT_RISE_MAX_PCT, "%" },
};

static gboolean
get_number (JsonObject *obj,
            const char *key,
            gdouble    *out)
{
  JsonNode *node;

  if (obj == NULL || !json_object_has_member (obj, key))
    return FALSE;
  node = json_object_get_member (obj, key);
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
    case G_TYPE_DOUBLE:
      *out = json_node_get_double (node);
      return TRUE;
    default:
      return FALSE;
    }
}

static char *
rule_message (const Rule *rule,
              JsonObject *summary,
              gboolean    have,
              gdouble     value,
              gdouble     limit,
              gboolean    ok)
{
  gdouble cpus = 0, load = 0, slope = 0, share = 0;
  const char *disk;

  if (g_str_equal (rule->id, "iowait"))
    {
      if (!have)
        return g_strdup (_("I/O wait was not measured (no monitor sample)."));
      if (ok)
        return g_strdup_printf (_("The processor waited for the disk at most %.1f %% of the time (top “wa”, limit %.0f %%): the disk kept up with the load."),
                                value, limit);
      return g_strdup_printf (_("The processor waited for the disk up to %.1f %% of the time (top “wa”, limit %.0f %%): the disk cannot keep up, so programs stall on I/O. Fix: move heavy disk work off this PC or onto a faster disk (SSD), and keep the robot software's files on a disk nothing else loads."),
                              value, limit);
    }
  if (g_str_equal (rule->id, "load"))
    {
      get_number (summary, "cpu_count", &cpus);
      get_number (summary, "load1_max", &load);
      if (!have)
        return g_strdup (_("The load average was not measured (no monitor sample)."));
      if (ok)
        return g_strdup_printf (_("The load average peaked at %.2f on %.0f CPUs (%.2f per CPU, limit %.2f): the CPUs kept up."),
                                load, cpus, value, limit);
      return g_strdup_printf (_("The load average reached %.2f on %.0f CPUs (%.2f per CPU, limit %.2f): more programs wanted to run than there are CPUs, so the CPU is overloaded. Fix: stop programs that are not needed or use a PC with more cores, and give the real-time task a CPU of its own."),
                              load, cpus, value, limit);
    }
  if (g_str_equal (rule->id, "disk-util"))
    {
      disk = summary != NULL && json_object_has_member (summary, "disk_util_max_name")
               && !json_object_get_null_member (summary, "disk_util_max_name")
             ? json_object_get_string_member (summary, "disk_util_max_name") : "?";
      if (!have)
        return g_strdup (_("No disk was active, so no disk could be saturated."));
      if (ok)
        return g_strdup_printf (_("The busiest disk (%s) was busy at most %.1f %% of the time (iostat %%util, limit %.0f %%): it is not saturated."),
                                disk, value, limit);
      return g_strdup_printf (_("Disk %s was busy %.1f %% of the time (iostat %%util, limit %.0f %%): it is saturated and further I/O has to queue. Fix: reduce disk writes on this PC (logging, swap, other programs) or use a faster disk."),
                              disk, value, limit);
    }
  if (g_str_equal (rule->id, "cpu-idle"))
    {
      if (!have)
        return g_strdup (_("CPU idle time was not measured (no monitor sample)."));
      if (ok)
        return g_strdup_printf (_("The CPUs stayed at least %.1f %% idle (iostat %%idle, limit %.0f %%): enough reserve is left."),
                                value, limit);
      return g_strdup_printf (_("The CPUs were only %.1f %% idle at the lowest (iostat %%idle, limit %.0f %%): the load leaves little reserve for the robot software. Fix: find the busiest programs in the monitor's top list and stop them or move them to other times."),
                              value, limit);
    }
  /* await-rising */
  get_number (summary, "await_slope_ms_per_s", &slope);
  get_number (summary, "await_monotone_share", &share);
  if (!have)
    return g_strdup (_("The disk wait time (await) was not measured."));
  if (ok)
    return g_strdup_printf (_("The disk wait time (iostat await) did not rise steadily (rise %.0f %%, limit %.0f %%)."),
                            value, limit);
  return g_strdup_printf (_("The disk wait time (iostat await) rose steadily by %.0f %% during the test (%.2f ms per second, %.0f %% of steps upward; limit %.0f %%): requests wait longer and longer, which points to a CPU or memory bottleneck. Fix: check memory use and swap in the monitor, reduce the memory load or add RAM, and make sure no program hogs the CPU."),
                          value, slope, share * 100.0, limit);
}

JsonArray *
qf_load_rules_evaluate (JsonObject *monitor,
                        JsonObject *limits)
{
  JsonArray *out = json_array_new ();
  JsonObject *summary = NULL;

  if (monitor != NULL && json_object_has_member (monitor, "summary"))
    summary = json_object_get_object_member (monitor, "summary");

  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      const Rule *rule = &rules[i];
      JsonObject *o = json_object_new ();
      g_autofree char *metric = g_strconcat ("monitor.summary.", rule->key, NULL);
      g_autofree char *message = NULL;
      gdouble value = 0, limit = rule->limit;
      gboolean have = get_number (summary, rule->key, &value);
      gboolean ok;

      get_number (limits, rule->key, &limit);
      if (!have)
        ok = TRUE;   /* nothing measured cannot break a rule; the message says so */
      else if (g_str_equal (rule->comparison, "<="))
        ok = value <= limit;
      else
        ok = value >= limit;
      message = rule_message (rule, summary, have, value, limit, ok);

      json_object_set_string_member (o, "id", rule->id);
      json_object_set_string_member (o, "metric", metric);
      if (have)
        json_object_set_double_member (o, "value", value);
      else
        json_object_set_null_member (o, "value");
      json_object_set_double_member (o, "limit", limit);
      json_object_set_string_member (o, "comparison", rule->comparison);
      json_object_set_string_member (o, "unit", rule->unit);
      json_object_set_boolean_member (o, "ok", ok);
      json_object_set_string_member (o, "message", message);
      json_array_add_object_element (out, o);
    }
  return out;
}

gboolean
qf_load_rules_all_ok (JsonArray *outcomes)
{
  g_return_val_if_fail (outcomes != NULL, FALSE);
  for (guint i = 0; i < json_array_get_length (outcomes); i++)
    if (!json_object_get_boolean_member (json_array_get_object_element (outcomes, i), "ok"))
      return FALSE;
  return TRUE;
}
