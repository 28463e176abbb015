/** A gate's answer: go (with what the gate found, such as the fees to send with), or hold and why. */
export type GateAnswer<Go extends object = object> = ({ go: true } & Go) | { go: false; reason: string };
