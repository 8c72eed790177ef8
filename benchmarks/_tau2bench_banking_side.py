"""τ²-bench's side of `banking_differential.py`, run by a Python where τ²-bench is installed (its package is
also called `tau2`, so it cannot share our interpreter). Reads one JSON request a line on standard input
and answers one JSON line each:

- `{"op": "reset", "data_dir": D, "variant": V, "top_k": K, "allowlist": [...]}`: a fresh environment on
  the banking data directory D under retrieval variant V (any τ²-bench variant without dense search or
  shell; of `alltools` only the BM25 search is built, since the dense search needs an embeddings service
  and the shell τ²-bench's sandbox);
  answers `{"hash": H}`, the database hash.
- `{"op": "call", "requestor": "assistant"|"user", "name": N, "arguments": {...}}`: the tool message
  τ²-bench's environment answers, as `{"content": C, "error": E, "hash": H}`.

Documents are read in id order, as tau2 orders them (τ²-bench lists them in the file system's order, which
only decides ties between equal scores).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tau2.data_model.message import ToolCall
from tau2.domains.banking_knowledge.data_model import Document, KnowledgeBase, TransactionalDB
from tau2.domains.banking_knowledge.retrieval import (
    PipelineSpec,
    _create_kb_pipeline,
    build_tools,
    resolve_variant,
)
from tau2.domains.banking_knowledge.retrieval_toolkits import KnowledgeToolsAllTools
from tau2.domains.banking_knowledge.tools import KnowledgeUserTools
from tau2.environment.environment import Environment


def knowledge_base(directory: Path) -> KnowledgeBase:
    documents = {}
    for path in sorted((directory / "documents").glob("*.json")):
        document = Document(**json.loads(path.read_text()))
        documents[document.id] = document
    return KnowledgeBase(documents=documents)


def environment(request: dict[str, Any]) -> Environment:
    directory = Path(request["data_dir"])
    db = TransactionalDB.load(str(directory / "db.json"))
    knowledge = knowledge_base(directory)
    allowlist = set(request["allowlist"])
    if request["variant"] == "alltools":
        spec = PipelineSpec(type="bm25", top_k=request["top_k"])
        tools: Any = KnowledgeToolsAllTools(db, _create_kb_pipeline(spec, knowledge), None, None)
        tools.set_read_log_allowlist(allowlist)
    else:
        variant = resolve_variant(request["variant"], top_k=request["top_k"])
        tools = build_tools(variant, db, knowledge, read_log_allowlist=allowlist)
    return Environment(
        domain_name="banking_knowledge", policy="", tools=tools, user_tools=KnowledgeUserTools(db)
    )


def main() -> None:
    env: Environment | None = None
    number = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "reset":
            env = environment(request)
            answer: dict[str, Any] = {"hash": env.get_db_hash()}
        else:
            assert env is not None
            number += 1
            call = ToolCall(
                id=f"call_{number}",
                name=request["name"],
                arguments=request["arguments"],
                requestor=request["requestor"],
            )
            message = env.get_response(call)
            answer = {"content": message.content, "error": message.error, "hash": env.get_db_hash()}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
