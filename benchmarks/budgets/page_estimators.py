"""The generated regions of ``docs/estimators.md``, from the committed results they cite."""

from __future__ import annotations

from ..shared.regions import region
from .page import _training_step


@region("freed-memory")
def freed_memory() -> str:
    """What keeping freed memory (sktdi.utils.memory) buys a CPU training step: the same code with
    glibc's defaults against it kept, from the training-step benchmark."""
    layer = _training_step()["layer"]
    shape = layer["shape"]

    def change(part: str) -> str:
        m = layer[part]
        ratio = m["current_ms"] / m["code_only_ms"]
        return f"from {m['code_only_ms']:.1f} ms to {m['current_ms']:.1f} ms ({ratio:.2f}×)"

    return (
        f"Keeping freed memory takes an S4D layer's training step (forward + backward, batch "
        f"{shape['batch']}, d_model {shape['d_model']}, length {shape['length']}) "
        f"{change('layer')}, and an S4D block's {change('block')}: median over "
        f"{layer['rounds']} alternating rounds, {layer['threads']} threads, in fresh "
        f"processes ([TDI at every training budget](budgets.md)).\n"
    )
