"""LaTeX (and PDF) of the reports of sizes, sweep, whatif, permute and kvcache."""
