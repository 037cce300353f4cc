"""Every word the server says that is not a log line: refusals (`refusals`), and the
French grammar the narrators share (`french`: elision, agreement)."""
