# doc — targets of this directory
dist_doc_DATA += doc/protocol.md
dist_man_MANS += doc/man/hetsched-solve.1
dist_man_MANS += doc/man/hetsched-simulate.1
