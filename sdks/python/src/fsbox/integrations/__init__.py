"""The framework adapters: fsbox's file tools inside an agent framework, one module per framework.

- :mod:`fsbox.integrations.pydantic_ai` — ``FileSystem`` (a capability, in place of
  ``pydantic_ai_harness.FileSystem``) and ``FsboxToolset`` (``pip install 'fsbox[pydantic-ai]'``);
- :mod:`fsbox.integrations.langchain` — ``FsboxToolkit``, LangChain tools for ``create_agent`` and
  LangGraph (``pip install 'fsbox[langchain]'``);
- :mod:`fsbox.integrations.deepagents` — ``FsboxBackend``, deepagents' ``BackendProtocol``
  (``pip install 'fsbox[deepagents]'``).

The modules starting with ``_`` are what the adapters share (the config they build, retry
accounting, the change gate, a framework's hooks); they are not API. Each adapter imports its
framework, so importing this package imports none: ``import fsbox.integrations`` works without any
framework installed, and only the adapter you import needs its extra.

``fsbox.pydantic_ai``, ``fsbox.langchain`` and ``fsbox.deepagents``, the adapters' first homes,
re-export the same objects and keep working.

What the adapters protect: every path goes through a real fsbox process, so containment, policy
and approvals are the server's, not the framework's. What they do not: a framework's own tools
that bypass the adapter (a shell tool, say) are outside fsbox's reach.
"""
