# SPDX-License-Identifier: GPL-2.0-or-later
# etc — configuration examples.
# The example hetsched.conf(5), installed with the documentation.
dist_doc_DATA += etc/hetsched.conf
# Notes for administrators on select/hetsched_cons_tres.
dist_doc_DATA += etc/select_hetsched_cons_tres.txt

# Admin snippets for loading hetsched into an existing Slurm: slurm.conf
# lines, the plugstack.conf line, gres.conf lines. Installed as examples
# into $(docdir)/examples (they are not live configuration); the plugin
# paths inside are the configured $(slurmplugindir).
hetschedexamplesdir = $(docdir)/examples
dist_hetschedexamples_DATA = etc/gres.conf.hetsched
nodist_hetschedexamples_DATA = etc/slurm.conf.hetsched etc/plugstack.conf.hetsched
EXTRA_DIST += etc/slurm.conf.hetsched.in etc/plugstack.conf.hetsched.in
CLEANFILES += $(nodist_hetschedexamples_DATA)

# Substituted at make time, so that ${libdir}-style defaults are expanded.
ETC_SUBST = sed -e 's|@slurmplugindir[@]|$(slurmplugindir)|g'
etc/slurm.conf.hetsched: $(srcdir)/etc/slurm.conf.hetsched.in Makefile
	@$(MKDIR_P) etc
	$(AM_V_GEN)$(ETC_SUBST) $(srcdir)/etc/slurm.conf.hetsched.in >$@
etc/plugstack.conf.hetsched: $(srcdir)/etc/plugstack.conf.hetsched.in Makefile
	@$(MKDIR_P) etc
	$(AM_V_GEN)$(ETC_SUBST) $(srcdir)/etc/plugstack.conf.hetsched.in >$@
