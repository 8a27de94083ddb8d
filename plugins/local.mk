# SPDX-License-Identifier: GPL-2.0-or-later
# plugins — the Slurm plugins: sched/hetsched, select/hetsched_cons_tres and
# the hetsched SPANK plugin. Real out-of-tree Slurm plugins: libtool modules
# built against the configured Slurm source tree (internal headers and
# config.h), installed into $(slurmplugindir). Symbols of slurmctld and
# libslurmfull resolve when Slurm dlopen()s them, so no Slurm library is
# linked and -no-undefined must not be used.
if BUILD_PLUGINS
# plugins/compat is the Slurm compatibility layer: every difference between
# the Slurm series the plugins build against lives there (hs_slurm.h,
# hs_spank.h, select_forward*.c, pack_channel.c; doc/slurm-versions.md).
PLUGIN_CPPFLAGS = -I$(SLURM_SRC) -I$(SLURM_SRC)/src/common -I$(top_srcdir)/plugins $(AM_CPPFLAGS)
PLUGIN_LDFLAGS = -module -avoid-version -shared -rpath $(slurmplugindir)

slurmplugin_LTLIBRARIES += plugins/sched/hetsched/sched_hetsched.la
plugins_sched_hetsched_sched_hetsched_la_SOURCES = \
	plugins/sched/hetsched/sched_hetsched.c plugins/sched/hetsched/hs_plugin.h \
	plugins/sched/hetsched/agent.c \
	plugins/sched/hetsched/conf.c \
	plugins/sched/hetsched/snapshot.c \
	plugins/sched/hetsched/runnable.c \
	plugins/sched/hetsched/apply.c \
	plugins/sched/hetsched/exec.c \
	plugins/sched/hetsched/start.c \
	plugins/sched/hetsched/lockhold.c \
	plugins/sched/hetsched/ops.c \
	plugins/sched/hetsched/cpujobs.c \
	plugins/sched/hetsched/requeue_sweep.c \
	plugins/sched/hetsched/hetjobs.c \
	plugins/sched/hetsched/heap.c \
	plugins/compat/hs_slurm.h \
	plugins/compat/pack_channel.c plugins/compat/pack_channel.h
plugins_sched_hetsched_sched_hetsched_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_sched_hetsched_sched_hetsched_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
# The Slurm-free engine (src/sched) and the core library are linked in;
# only Slurm's entry points are exported, so nothing of ours can clash
# with symbols of slurmctld or of our other plugins.
plugins_sched_hetsched_sched_hetsched_la_LDFLAGS = $(PLUGIN_LDFLAGS) \
	-export-symbols-regex '^(init|fini|sched_p_[a-z_]+|plugin_(name|type|version))$$'
plugins_sched_hetsched_sched_hetsched_la_LIBADD = libhetsched_sched.la libhetsched_measure.la \
	libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm -lpthread

slurmplugin_LTLIBRARIES += plugins/select/hetsched/select_hetsched_cons_tres.la
plugins_select_hetsched_select_hetsched_cons_tres_la_SOURCES = \
	plugins/select/hetsched/select_hetsched_cons_tres.c \
	plugins/compat/hs_slurm.h plugins/compat/select_ops.h \
	plugins/compat/select_forward.c plugins/compat/select_forward.h \
	plugins/compat/select_forward_old.c
# space sharing (packing)
plugins_select_hetsched_select_hetsched_cons_tres_la_SOURCES += \
	plugins/select/hetsched/hs_pack.h \
	plugins/select/hetsched/pack.c plugins/select/hetsched/pack.h \
	plugins/select/hetsched/pack_gres.c plugins/select/hetsched/pack_gres.h
plugins_select_hetsched_select_hetsched_cons_tres_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_select_hetsched_select_hetsched_cons_tres_la_LDFLAGS = $(PLUGIN_LDFLAGS)

# The SPANK plugin needs only the public <slurm/spank.h>, taken from the
# Slurm tree it is built for (the installed ones may be another version).
slurmplugin_LTLIBRARIES += plugins/spank/hetsched/spank_hetsched.la
plugins_spank_hetsched_spank_hetsched_la_SOURCES = plugins/spank/hetsched/spank_hetsched.c \
	plugins/compat/hs_spank.h
plugins_spank_hetsched_spank_hetsched_la_CPPFLAGS = -I$(SLURM_SRC) -I$(top_srcdir)/plugins $(AM_CPPFLAGS)
plugins_spank_hetsched_spank_hetsched_la_LDFLAGS = $(PLUGIN_LDFLAGS)
# report listener, AdminComment publishing (Slurm-free parts in
# libhetsched_measure; only spank_job.c calls the Slurm RPC API)
plugins_spank_hetsched_spank_hetsched_la_SOURCES += \
	plugins/spank/hetsched/spank_job.c plugins/spank/hetsched/spank_job.h
plugins_spank_hetsched_spank_hetsched_la_LIBADD = libhetsched_measure.la $(JSONC_LIBS) -lpthread
plugins_spank_hetsched_spank_hetsched_la_LDFLAGS += -export-symbols-regex '^(slurm_spank_|plugin_)'

# Compiles the plugins' own objects only (no core library, no link): what
# contrib/compile-matrix.sh runs against every supported Slurm series.
plugin-objects: $(plugins_sched_hetsched_sched_hetsched_la_OBJECTS) \
	$(plugins_select_hetsched_select_hetsched_cons_tres_la_OBJECTS) \
	$(plugins_spank_hetsched_spank_hetsched_la_OBJECTS)
.PHONY: plugin-objects

# Staging dir: every build also copies the plugins into $(PLUGIN_STAGE), a
# directory a local cluster can put in front of its PluginDir
# (hs-cluster --plugin-dir $(PLUGIN_STAGE)); the integration tests and
# contrib/demo.sh use it. `make install` is what admins use.
PLUGIN_STAGE = $(abs_top_builddir)/stage/plugins
all-local: stage-plugins
stage-plugins: $(slurmplugin_LTLIBRARIES)
	@$(MKDIR_P) $(PLUGIN_STAGE)
	@for p in $(slurmplugin_LTLIBRARIES); do \
		$(LIBTOOL) --quiet --mode=install $(INSTALL) "$$p" "$(PLUGIN_STAGE)/$${p##*/}" >/dev/null 2>&1 \
			|| { echo "staging $$p into $(PLUGIN_STAGE) failed" >&2; exit 1; }; \
	done
	@rm -f $(PLUGIN_STAGE)/*.la
clean-local: clean-stage-plugins
clean-stage-plugins:
	-rm -rf $(abs_top_builddir)/stage

# Slurm loads only the .so files; its own plugin dir has no libtool .la
# files, so we do not leave ours there (and remove the .so on uninstall,
# which libtool cannot do without the .la).
install-data-hook: install-plugins-drop-la
install-plugins-drop-la:
	@for p in $(slurmplugin_LTLIBRARIES); do \
		rm -f "$(DESTDIR)$(slurmplugindir)/$${p##*/}"; \
	done
uninstall-local: uninstall-plugins-so
uninstall-plugins-so:
	@for p in $(slurmplugin_LTLIBRARIES); do \
		n=$${p##*/}; rm -f "$(DESTDIR)$(slurmplugindir)/$${n%.la}.so"; \
	done
.PHONY: stage-plugins clean-stage-plugins install-plugins-drop-la uninstall-plugins-so

# distcheck builds the plugins against the same Slurm tree, and installs
# them under its own prefix, never into the system's Slurm plugin dir.
AM_DISTCHECK_CONFIGURE_FLAGS = --with-slurm-source=$(SLURM_SRC) $(HS_SLURM_CHECK_FLAGS) --with-slurm-plugindir='$${libdir}/slurm'
else
AM_DISTCHECK_CONFIGURE_FLAGS = --without-slurm
endif
