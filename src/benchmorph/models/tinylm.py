"""A small transformer trained from scratch on a benchmark's prompts and solutions: a contaminated model.

The contamination verdict must be shown to flag a model that *learned* a
benchmark, not only a lookup table.  This is that model: a decoder-only
transformer (ALiBi attention, no position embeddings, tied input and output
embeddings) trained on each problem's completion prompt followed by its
reference solution until it reproduces the solutions, then asked like any
other model (``trained:PATH``, :mod:`benchmorph.models.backends.trained`).
It has seen nothing but the benchmark, so what it solves it solves from
memory, the way a contaminated LLM does: a variant that keeps the original's
wording near the solution's start still triggers the memorised answer, one
that retells the problem does not.

Windows, in training and in decoding alike: a problem's tokens (prompt, then
solution, then an end token) are cut into windows of ``context`` tokens
starting half a window before the solution and moving on by half a window.
Each solution token is decoded in the window where it has at least half a
window of context before it, and learned in every window that holds it; a
model that predicts every solution token right in the windows decoding reads
(``exact``: teacher-forced) reproduces every solution by greedy decoding.  Decoding keeps the
keys and values of the current window (one token's work per step) and
re-reads the last half window when it moves on.

torch is an optional dependency (``pip install 'benchmorph[torch]'``); this
module imports it at the top, so import it only where a trained model is used.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from benchmorph.data.models import Problem
from benchmorph.models.prompts import build_request

# Words with their leading space, whole numbers, indentation in fours, single marks; nothing is lost.
TOKEN = re.compile(r"\n|(?: {4})+| ?[A-Za-z_]+| ?\d+| ?[^\sA-Za-z_\d]| +|\s")
PAD, UNK, END = "<pad>", "<unk>", "<end>"
FORMAT = "benchmorph-tinylm/1"


class Vocabulary:
    """The tokens of the training texts; anything else reads as ``<unk>``."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = list(tokens)
        self.index = {token: i for i, token in enumerate(self.tokens)}

    @classmethod
    def of(cls, texts: Sequence[str]) -> Vocabulary:
        return cls([PAD, UNK, END, *sorted({t for text in texts for t in TOKEN.findall(text)})])

    def encode(self, text: str) -> list[int]:
        unknown = self.index[UNK]
        return [self.index.get(token, unknown) for token in TOKEN.findall(text)]

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.tokens[i] for i in ids if i > 2)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def end(self) -> int:
        return self.index[END]


@dataclass
class Config:
    """The model's shape."""

    context: int = 64  # tokens a window holds (even)
    width: int = 256
    layers: int = 2
    heads: int = 4


def _alibi(heads: int, size: int) -> torch.Tensor:
    """ALiBi's causal bias: a head-specific penalty growing with distance, -inf on the future."""
    slopes = torch.tensor([2 ** (-8 * (h + 1) / heads) for h in range(heads)])
    positions = torch.arange(size)
    distance = (positions[None, :] - positions[:, None]).float()  # key minus query
    bias = slopes[:, None, None] * distance[None]
    return bias.masked_fill(distance[None] > 0, float("-inf"))


class _Block(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.heads = config.heads
        self.attention_norm = nn.LayerNorm(config.width)
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.out = nn.Linear(config.width, config.width)
        self.feed_norm = nn.LayerNorm(config.width)
        self.feed = nn.Sequential(
            nn.Linear(config.width, 4 * config.width), nn.GELU(), nn.Linear(4 * config.width, config.width)
        )

    def forward(
        self, x: torch.Tensor, bias: torch.Tensor, cache: list[torch.Tensor] | None = None
    ) -> torch.Tensor:
        batch, length, width = x.shape
        qkv = self.qkv(self.attention_norm(x)).view(batch, length, 3, self.heads, width // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        if cache is not None:  # decoding: attend to the window's earlier keys too
            if cache:
                k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
            cache[:] = [k, v]
        mask = bias[:, k.shape[2] - length : k.shape[2], : k.shape[2]].to(q.dtype)
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.out(attended.transpose(1, 2).reshape(batch, length, width))
        return x + self.feed(self.feed_norm(x))


class TinyLM(nn.Module):
    """The decoder: embeddings, ``layers`` pre-norm blocks, logits through the tied embedding."""

    def __init__(self, vocabulary_size: int, config: Config) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(vocabulary_size, config.width)
        self.blocks = nn.ModuleList(_Block(config) for _ in range(config.layers))
        self.norm = nn.LayerNorm(config.width)
        self.register_buffer("bias", _alibi(config.heads, config.context), persistent=False)
        for name, parameter in self.named_parameters():
            if parameter.dim() > 1:
                nn.init.normal_(parameter, std=0.02)
            elif name.endswith("bias") and "norm" not in name:
                nn.init.zeros_(parameter)

    def forward(self, ids: torch.Tensor, caches: list[list[torch.Tensor]] | None = None) -> torch.Tensor:
        hidden = self.embed(ids)
        for number, block in enumerate(self.blocks):
            hidden = block(hidden, self.bias, None if caches is None else caches[number])
        return self.norm(hidden) @ self.embed.weight.T


# ------------------------------------------------------------------ data: prompts, solutions, windows


def completion_pair(problem: Problem) -> tuple[str, str]:
    """(what the model is asked, what it should answer): the completion prompt ``run`` sends and the
    text that, appended to it, is the reference."""
    prompt = build_request(problem, "completion").prompt
    reference = problem.reference
    return prompt, reference[len(prompt) :] if reference.startswith(prompt) else "\n" + reference


def window_starts(prompt_length: int, total: int, context: int) -> list[int]:
    """Where the windows of a sequence of ``total`` tokens whose solution starts at ``prompt_length``
    begin (see the module docstring)."""
    half = context // 2
    start = max(0, prompt_length - half)
    starts = [start]
    while start + context < total - 1:  # the last window predicts up to start + context
        start += half
        starts.append(start)
    return starts


@dataclass
class Batch:
    """Windows as tensors: inputs, next-token targets, the solution positions each learns from
    (``learn``: every solution token in it) and those decoding reads from it (``weights``)."""

    inputs: torch.Tensor
    targets: torch.Tensor
    weights: torch.Tensor
    problem: torch.Tensor  # the pair each window belongs to
    learn: torch.Tensor


def make_windows(pairs: Sequence[tuple[str, str]], vocabulary: Vocabulary, context: int) -> Batch:
    """Every window of every pair.  A solution token is decoded in one window (``weights``) but learned
    in every window that holds it (``learn``): the second view, with less context, is free signal."""
    half = context // 2
    inputs, targets, weights, owners, learn = [], [], [], [], []
    for number, (prompt, solution) in enumerate(pairs):
        prompt_ids = vocabulary.encode(prompt)
        sequence = prompt_ids + vocabulary.encode(solution) + [vocabulary.end]
        starts = window_starts(len(prompt_ids), len(sequence), context)
        for order, start in enumerate(starts):
            given = sequence[start : start + context]
            wanted = sequence[start + 1 : start + context + 1]
            first = 0 if order == 0 else half  # positions learned here: after half a window of context
            answer = [1.0 if start + 1 + i >= len(prompt_ids) else 0.0 for i in range(len(wanted))]
            weight = [flag if i >= first else 0.0 for i, flag in enumerate(answer)]
            pad = context - len(wanted)
            learn.append(answer + [0.0] * pad)
            inputs.append(given[: len(wanted)] + [0] * pad)
            targets.append(wanted + [0] * pad)
            weights.append(weight + [0.0] * pad)
            owners.append(number)
    return Batch(
        torch.tensor(inputs),
        torch.tensor(targets),
        torch.tensor(weights),
        torch.tensor(owners),
        torch.tensor(learn),
    )


# ------------------------------------------------------------------ training


@dataclass
class TrainReport:
    """What a training run did: per evaluation, the epoch, loss, token accuracy and exact share."""

    epochs: int = 0
    seconds: float = 0.0  # wall time
    cpu_seconds: float = 0.0  # CPU time of this process (every thread)
    exact: float = 0.0  # share of problems whose every solution token is predicted right
    token_accuracy: float = 0.0
    history: list[dict[str, float]] = field(default_factory=list)
    stopped: str = ""


def _autocast(device: str, enabled: bool) -> Any:
    return torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=enabled)


@torch.no_grad()
def evaluate(
    model: TinyLM, batch: Batch, problems: int, device: str = "cpu", bf16: bool = True
) -> tuple[float, torch.Tensor]:
    """(token accuracy, per problem: every solution token right) under teacher forcing, window by
    window as decoding reads them."""
    model.eval()
    wrong = torch.zeros(problems)
    right = total = 0.0
    for start in range(0, len(batch.inputs), 256):
        inputs = batch.inputs[start : start + 256].to(device)
        with _autocast(device, bf16):
            predicted = model(inputs).argmax(-1).cpu()
        weights = batch.weights[start : start + 256]
        miss = ((predicted != batch.targets[start : start + 256]).float() * weights).sum(1)
        wrong.index_add_(0, batch.problem[start : start + 256], miss)
        right += float(weights.sum() - miss.sum())
        total += float(weights.sum())
    model.train()
    return right / max(total, 1.0), wrong == 0


def train(
    pairs: Sequence[tuple[str, str]],
    config: Config | None = None,
    *,
    epochs: int = 400,
    batch_size: int = 64,
    learning_rate: float = 5e-3,
    seed: int = 0,
    device: str = "cpu",
    bf16: bool = True,
    target_exact: float = 1.0,
    time_limit: float | None = None,
    wall_limit: float | None = None,
    evaluate_every: int = 3,
    replay: float = 0.25,
    progress: Callable[[dict[str, float]], None] | None = None,
) -> tuple[TinyLM, Vocabulary, TrainReport]:
    """Train a TinyLM on ``pairs`` (prompt, solution) until ``target_exact`` of them are reproduced,
    ``epochs`` are done, or the process has used ``time_limit`` seconds of CPU time or ``wall_limit``
    seconds have passed (both checked at each evaluation).

    CPU time, not wall time, is the budget: on a machine shared with other work the same training
    takes the same CPU time however long it waits.  AdamW with a short warm-up and a cosine decay
    that ends at ``epochs`` or at the budget, whichever comes first; bf16 autocast (CPUs with
    AVX-512 BF16 run it several times faster than float32).  After each evaluation an epoch covers
    the windows of the problems not yet reproduced and a ``replay`` share of the others, so the
    tail of training is spent where it is needed.
    """
    config = config or Config()
    torch.manual_seed(seed)
    vocabulary = Vocabulary.of([prompt + solution for prompt, solution in pairs])
    batch = make_windows(pairs, vocabulary, config.context)
    model = TinyLM(len(vocabulary), config).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0, betas=(0.9, 0.98))
    total_steps = max(1, epochs * math.ceil(len(batch.inputs) / batch_size))
    warmup = min(20, total_steps // 10 + 1)
    report = TrainReport()
    started, cpu_started = time.perf_counter(), time.process_time()
    solved = torch.zeros(len(pairs), dtype=torch.bool)
    step = 0

    def spent() -> float:
        fractions = [step / total_steps]
        if time_limit:
            fractions.append((time.process_time() - cpu_started) / time_limit)
        if wall_limit:
            fractions.append((time.perf_counter() - started) / wall_limit)
        return max(fractions)

    for epoch in range(epochs):
        keep = ~solved[batch.problem] | (torch.rand(len(batch.problem)) < replay)
        chosen = torch.nonzero(keep).flatten()
        order = chosen[torch.randperm(len(chosen))]
        loss_sum = weight_sum = 0.0
        for first in range(0, len(order), batch_size):
            picked = order[first : first + batch_size]
            weights = batch.learn[picked].to(device)
            if float(weights.sum()) == 0:
                continue
            scale = min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(spent(), 1.0)))
            for group in optimizer.param_groups:
                group["lr"] = learning_rate * max(scale, 0.02)
            with _autocast(device, bf16):
                logits = model(batch.inputs[picked].to(device))
            losses = F.cross_entropy(
                logits.float().transpose(1, 2), batch.targets[picked].to(device), reduction="none"
            )
            loss = (losses * weights).sum() / weights.sum()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            loss_sum += float(loss.detach()) * float(weights.sum())
            weight_sum += float(weights.sum())
        report.epochs = epoch + 1
        last = epoch + 1 == epochs
        if (epoch + 1) % evaluate_every == 0 or last:
            accuracy, solved = evaluate(model, batch, len(pairs), device, bf16)
            exact = float(solved.float().mean())
            report.token_accuracy, report.exact = accuracy, exact
            report.seconds = time.perf_counter() - started
            report.cpu_seconds = time.process_time() - cpu_started
            entry = {
                "epoch": epoch + 1,
                "loss": loss_sum / max(weight_sum, 1.0),
                "token_accuracy": accuracy,
                "exact": exact,
                "seconds": report.seconds,
                "cpu_seconds": report.cpu_seconds,
            }
            report.history.append(entry)
            if progress is not None:
                progress(entry)
            if exact >= target_exact:
                report.stopped = f"{exact:.3f} of the solutions reproduced"
                break
            if spent() >= 1.0:
                report.stopped = "budget spent (CPU time or wall time)"
                break
    else:
        report.stopped = f"{epochs} epochs"
    report.seconds = time.perf_counter() - started
    report.cpu_seconds = time.process_time() - cpu_started
    model.eval()
    return model, vocabulary, report


# ------------------------------------------------------------------ checkpoints and decoding


def save(path: str | Path, model: TinyLM, vocabulary: Vocabulary, meta: dict[str, Any] | None = None) -> Path:
    """One file: the weights (float32), the vocabulary, the shape and what it was trained on."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    state = {name: tensor.detach().float().cpu() for name, tensor in model.state_dict().items()}
    torch.save(
        {
            "format": FORMAT,
            "config": asdict(model.config),
            "vocabulary": vocabulary.tokens,
            "state": state,
            "meta": meta or {},
        },
        target,
    )
    return target


class CheckpointError(Exception):
    """A file that is not a checkpoint this module wrote."""


def load(path: str | Path, device: str = "cpu") -> tuple[TinyLM, Vocabulary, dict[str, Any]]:
    """The model, vocabulary and meta of a checkpoint written by :func:`save`."""
    try:
        data = torch.load(Path(path), map_location=device, weights_only=True)
    except Exception as exc:  # torch raises many kinds for a file that is not its own
        raise CheckpointError(f"not a torch checkpoint: {exc}".splitlines()[0][:200]) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"not a {FORMAT} checkpoint (written by bench/contaminate.py)")
    vocabulary = Vocabulary(data["vocabulary"])
    model = TinyLM(len(vocabulary), Config(**data["config"]))
    model.load_state_dict(data["state"])
    model.to(device).eval()
    return model, vocabulary, dict(data.get("meta") or {})


@torch.no_grad()
def complete(
    model: TinyLM,
    vocabulary: Vocabulary,
    prompt: str,
    max_tokens: int = 512,
    device: str = "cpu",
    bf16: bool = True,
) -> tuple[str, str]:
    """Greedy continuation of ``prompt`` read window by window (see the module docstring), and why it
    stopped: ``stop`` at the end token, ``length`` at ``max_tokens``."""
    context = model.config.context
    half = context // 2
    sequence = vocabulary.encode(prompt)
    prompt_length = len(sequence)
    start = max(0, prompt_length - half)
    produced: list[int] = []
    caches: list[list[torch.Tensor]] = [[] for _ in model.blocks]
    pending = sequence[start:]  # tokens of the current window not yet read
    reason = "length"
    with _autocast(device, bf16):
        while len(produced) < max_tokens:
            if len(sequence) - start > context:  # the newest token is past the window: move on
                start += half
                caches = [[] for _ in model.blocks]
                pending = sequence[start:]
            if not pending:
                break
            logits = model(torch.tensor([pending], device=device), caches)
            pending = []
            token = int(logits[0, -1].float().argmax())
            if token == vocabulary.end:
                reason = "stop"
                break
            sequence.append(token)
            produced.append(token)
            pending = [token]
    return vocabulary.decode(produced), reason
