# doc — targets of this directory
dist_doc_DATA += doc/protocol.md
