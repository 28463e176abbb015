import { describeAction } from "../ledger/action-descriptor";
import { ClaimedTicketDto } from "./dto/claimed-ticket.dto";
import { ResoldTicketDto } from "./dto/resold-ticket.dto";
import { SoldTicketDto } from "./dto/sold-ticket.dto";
import { TicketMomentDto } from "./dto/ticket-moment.dto";
import { UpdateTicketDto } from "./dto/update-ticket.dto";
import type { TicketPlan } from "./ticket-acceptance";
import { checkInTicket, claimTicket, invalidateTicket, resellTicket, sellTicket, updateTicket } from "./ticket-rules";

const planTicket = (input: { ticketId: string }, plan: TicketPlan) => {
  plan.ticketIds.push(input.ticketId);
};

export const TicketActions = {
  sold: describeAction({
    dto: SoldTicketDto,
    plan: (input, plan: TicketPlan) => {
      plan.sales.set(input.eventId, (plan.sales.get(input.eventId) ?? 0) + 1);
      plan.soldTicketIds.push(input.ticketId);
    },
    apply: sellTicket,
  }),
  resold: describeAction({ dto: ResoldTicketDto, plan: planTicket, apply: resellTicket }),
  checkIn: describeAction({ dto: TicketMomentDto, plan: planTicket, apply: checkInTicket }),
  invalidated: describeAction({ dto: TicketMomentDto, plan: planTicket, apply: invalidateTicket }),
  updateTicket: describeAction({ dto: UpdateTicketDto, plan: planTicket, apply: updateTicket }),
  claimed: describeAction({
    dto: ClaimedTicketDto,
    plan: (input, plan: TicketPlan) => {
      planTicket(input, plan);
      plan.claims += 1;
    },
    apply: claimTicket,
  }),
};
