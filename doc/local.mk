# doc — manual pages (roff) and developer notes.
dist_doc_DATA += doc/protocol.md
dist_man_MANS += doc/man/hetsched-solve.1
dist_man_MANS += doc/man/hetsched-simulate.1
dist_man_MANS += doc/man/hs-cluster.1
EXTRA_DIST += doc/hacking.md
