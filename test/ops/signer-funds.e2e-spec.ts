import { Logger } from "@nestjs/common";
import { parseEther, toQuantity, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import { SignerFundsIndicator } from "../../src/chain/writer/signer-funds/signer-funds.indicator";
import { SignerFundsMonitor } from "../../src/chain/writer/signer-funds/signer-funds.monitor";
import { adminFetch, scrapeMetrics, total } from "../support/metrics-scrape";
import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/** One full batch (TX_GAS_CAP, 15M gas) at Hardhat's fees costs a few hundredths of an ether: a thousandth is short. */
const SHORT_BALANCE = parseEther("0.001");
const FUNDED_BALANCE = parseEther("10000");

let signer: string;
let indicator: SignerFundsIndicator;
let monitor: SignerFundsMonitor;

const chainApp = useChainApp({ env: { SIGNER_FUNDS_CHECK_MS: "100" } });

beforeAll(() => {
  signer = new Wallet(chainApp.chain.signerKeys[0]).address;
  indicator = chainApp.testApp.app.get(SignerFundsIndicator);
  monitor = chainApp.testApp.app.get(SignerFundsMonitor);
});

afterAll(() => {
  vi.restoreAllMocks();
});

const setBalance = (wei: bigint) => chainApp.chain.send("hardhat_setBalance", [signer, toQuantity(wei)]);

/** The indicator's answer once the monitor has checked a balance equal to `balanceWei`. */
function indicatorWhenBalanceIs(balanceWei: bigint) {
  return eventually(
    async () => {
      const result = indicator.isHealthy().signerFunds as any;
      return result.signers?.[signer]?.balanceWei === balanceWei.toString() ? result : undefined;
    },
    20_000,
    `the funds monitor to see a balance of ${balanceWei} wei`,
  );
}

/** Waits for `count` more checks of the monitor. */
async function checksPass(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const last = monitor.state.report?.checkedAt.getTime() ?? 0;
    await eventually(async () => ((monitor.state.report?.checkedAt.getTime() ?? 0) > last ? true : undefined), 20_000, "another funds check");
  }
}

describe("signer funds", () => {
  it("reports a funded signer as up, with its balance, need and nonces", async () => {
    const result = await indicatorWhenBalanceIs(await chainApp.chain.provider.getBalance(signer));
    expect(result).toMatchObject({ status: "up", checked: true, lastError: null });
    const details = result.signers[signer];
    expect(details).toMatchObject({ status: "funded", gasLastHour: "0", nonces: { chainLatest: 0, chainPending: 0 } });
    expect(BigInt(details.neededWei)).toBeGreaterThan(0n);
    expect(BigInt(details.neededWei)).toBeLessThan(BigInt(details.balanceWei));
  });

  it("turns degraded when a balance falls below the next hour's need, shows it in the gauges, warns once, and recovers", async () => {
    const warn = vi.spyOn(Logger.prototype, "warn");
    const shortWarnings = () => warn.mock.calls.filter(([message]) => String(message).includes(`signer ${signer} is short of funds`));

    await setBalance(SHORT_BALANCE);
    const degraded = await indicatorWhenBalanceIs(SHORT_BALANCE);
    expect(degraded.status).toBe("degraded");
    expect(degraded.signers[signer]).toMatchObject({ status: "short", balanceWei: SHORT_BALANCE.toString() });
    const neededWei = BigInt(degraded.signers[signer].neededWei);
    expect(neededWei).toBeGreaterThan(SHORT_BALANCE);

    const ready = await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "degraded", info: { signerFunds: { status: "degraded", signers: { [signer]: { status: "short" } } } } });

    const { samples } = await scrapeMetrics(chainApp.testApp.opsUrl);
    expect(total(samples, "ticket_registry_signer_balance_wei", { signer })).toBe(Number(SHORT_BALANCE));
    expect(total(samples, "ticket_registry_signer_funds_needed_wei", { signer })).toBeGreaterThan(Number(SHORT_BALANCE));

    await checksPass(3);
    expect(shortWarnings()).toHaveLength(1);

    await setBalance(FUNDED_BALANCE);
    expect(await indicatorWhenBalanceIs(FUNDED_BALANCE)).toMatchObject({ status: "up", signers: { [signer]: { status: "funded" } } });
    expect(await (await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`)).json()).toMatchObject({
      status: "ok",
      info: { signerFunds: { status: "up" } },
    });
    expect(shortWarnings()).toHaveLength(1);
  });
});

describe("readiness without the admin credential", () => {
  it("shows the signers' state without their addresses, balances or nonces; the admin credential sees them all", async () => {
    await indicatorWhenBalanceIs(await chainApp.chain.provider.getBalance(signer));
    const shown = await (await fetch(`${chainApp.testApp.baseUrl}/health/ready`)).text();
    expect(shown.toLowerCase()).not.toContain(signer.toLowerCase().slice(2));
    expect(shown).not.toMatch(/balanceWei|neededWei|nonces|chainPending/);
    expect(JSON.parse(shown)).toMatchObject({
      info: {
        signerFunds: { status: "up", signers: 1, shortSigners: 0 },
        chainWriter: { status: "up", stuckSigners: 0 },
        signerNonces: { status: "up", stoppedSigners: 0 },
      },
    });
    const full = await (await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`)).json();
    expect(full.info.signerFunds.signers[signer]).toMatchObject({ status: "funded", nonces: { chainLatest: expect.any(Number) } });
  });
});
