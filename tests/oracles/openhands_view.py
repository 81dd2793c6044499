"""The oracle for the openhands profile: OpenHands' own file editor, run by the Python it is installed in.

Reads one JSON request a line (``root`` and the tool's arguments) and writes one JSON answer a line:
the text the model receives (the observation serialized as the SDK sends a tool result with native
function calling: its text blocks) and whether it is an error. Anything the libraries print goes to
stderr. Run it with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that nothing is fetched.
"""

import json
import os
import sys

answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # the libraries' own output must not mix with the answers

from openhands.sdk.llm import Message  # noqa: E402
from openhands.tools.file_editor.definition import FileEditorAction  # noqa: E402
from openhands.tools.file_editor.impl import FileEditorExecutor  # noqa: E402

executors = {}
for line in sys.stdin:
    request = json.loads(line)
    root = request.pop("root")
    if root not in executors:
        executors[root] = FileEditorExecutor(workspace_root=root)
    try:
        action = FileEditorAction(**request)
    except Exception as error:  # the arguments the model sent were not valid
        answers.write(json.dumps({"invalid": str(error)}) + "\n")
        answers.flush()
        continue
    observation = executors[root](action)
    message = Message(role="tool", content=list(observation.to_llm_content), tool_call_id="call", name="file_editor")
    chat = message.to_chat_dict(
        cache_enabled=False,
        vision_enabled=False,
        function_calling_enabled=True,
        force_string_serializer=False,
        send_reasoning_content=False,
    )
    text = "".join(part["text"] for part in chat["content"] if part.get("type") == "text")
    answers.write(json.dumps({"text": text, "is_error": observation.is_error}) + "\n")
    answers.flush()
